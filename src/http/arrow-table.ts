import {
  Bool,
  type DataType,
  type Data,
  DateDay,
  Decimal,
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  makeBuilder,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  TimestampMillisecond,
  Utf8,
} from 'apache-arrow';
import type { z } from 'zod';
import { decimalText, isoDate, isoTimestamp } from '../value-schemas.ts';
import { META_KEY, ROWS_KEY } from './arrow-metadata.ts';

// The table form of a JSON answer (docs/api.md, "Arrow answers"): its row array as one Arrow
// record batch, typed from the route's declared zod schema, and the rest of the answer as JSON
// text in the schema's metadata. Every value keeps what the JSON said: a column whose values
// its Arrow type would change is sent as text instead (a decimal past 38 digits at the page's
// scale, a timestamp finer than milliseconds).

/** Digits a Decimal128 holds. */
const DECIMAL_PRECISION = 38;

/** A column as the zod schema declares it, with what the page's values showed. */
type Column = { nullable: boolean } & (
  | { kind: 'decimal'; scale: number; wholeDigits: number }
  | { kind: 'timestamp'; milliseconds: boolean }
  | { kind: 'date' | 'text' | 'enum' | 'boolean' | 'integer' | 'number' | 'json' }
  | { kind: 'struct'; fields: [string, Column][] }
  | { kind: 'list'; element: Column }
);

/** The primitives of value-schemas.ts, found by identity (or as a refined or described copy). */
const PRIMITIVES = new Map<object, 'decimal' | 'date' | 'timestamp'>([
  // moneyText is decimalText: amounts, rates and plain decimals alike.
  [decimalText, 'decimal'],
  [isoDate, 'date'],
  [isoTimestamp, 'timestamp'],
]);

interface ZodInternals {
  _zod: {
    parent?: ZodInternals;
    def: {
      type: string;
      format?: string;
      innerType?: ZodInternals;
      in?: ZodInternals;
      element?: ZodInternals;
      shape?: Record<string, ZodInternals>;
      entries?: Record<string, unknown>;
      values?: unknown[];
      getter?: () => ZodInternals;
    };
  };
}

function primitiveOf(schema: ZodInternals) {
  for (let s: ZodInternals | undefined = schema; s !== undefined; s = s._zod.parent) {
    const primitive = PRIMITIVES.get(s);
    if (primitive) return primitive;
  }
  return undefined;
}

/** The column a zod schema declares; what it cannot type (unknown, unions, records) is JSON text. */
function columnOf(schema: ZodInternals, nullable = false): Column {
  const def = schema._zod.def;
  switch (def.type) {
    case 'nullable':
    case 'optional':
      return columnOf(def.innerType!, true);
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return columnOf(def.innerType!, nullable);
    case 'pipe':
      // A response is checked on its input side: what the JSON holds.
      return columnOf(def.in!, nullable);
    case 'lazy':
      return columnOf(def.getter!(), nullable);
  }
  const primitive = primitiveOf(schema);
  if (primitive === 'decimal') return { kind: 'decimal', nullable, scale: 0, wholeDigits: 0 };
  if (primitive === 'timestamp') return { kind: 'timestamp', nullable, milliseconds: true };
  if (primitive === 'date') return { kind: 'date', nullable };
  switch (def.type) {
    case 'string':
      // zod's own formats, where a schema is not one of the primitives (z.iso.datetime()).
      if (def.format === 'date') return { kind: 'date', nullable };
      if (def.format === 'datetime') return { kind: 'timestamp', nullable, milliseconds: true };
      return { kind: 'text', nullable };
    case 'number':
      return {
        kind: def.format !== undefined && /int/.test(def.format) ? 'integer' : 'number',
        nullable,
      };
    case 'boolean':
      return { kind: 'boolean', nullable };
    case 'enum':
      return Object.values(def.entries!).every((v) => typeof v === 'string')
        ? { kind: 'enum', nullable }
        : { kind: 'json', nullable };
    case 'literal':
      return def.values!.every((v) => typeof v === 'string')
        ? { kind: 'text', nullable }
        : { kind: 'json', nullable };
    case 'object':
      return {
        kind: 'struct',
        nullable,
        fields: Object.entries(def.shape!).map(([name, field]) => [name, columnOf(field)]),
      };
    case 'array':
      return { kind: 'list', nullable, element: columnOf(def.element!) };
    default:
      return { kind: 'json', nullable };
  }
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const FRACTION = /\.(\d+)/;

/** Notes what the page's values need: each decimal column's scale and whole digits. */
function observe(column: Column, value: unknown): void {
  if (value === null || value === undefined) {
    column.nullable = true;
    return;
  }
  switch (column.kind) {
    case 'decimal': {
      const match = typeof value === 'string' ? DECIMAL.exec(value) : null;
      if (match === null) throw new Error(`not a decimal: ${JSON.stringify(value)}`);
      column.scale = Math.max(column.scale, match[3]?.length ?? 0);
      column.wholeDigits = Math.max(column.wholeDigits, match[2]!.replace(/^0+/, '').length);
      return;
    }
    case 'timestamp': {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
        throw new Error(`not a timestamp: ${JSON.stringify(value)}`);
      if ((FRACTION.exec(value)?.[1]?.length ?? 0) > 3) column.milliseconds = false;
      return;
    }
    case 'struct':
      for (const [name, field] of column.fields)
        observe(field, (value as Record<string, unknown>)[name]);
      return;
    case 'list':
      for (const element of value as unknown[]) observe(column.element, element);
      return;
    case 'date':
    case 'text':
    case 'enum':
    case 'boolean':
    case 'integer':
    case 'number':
    case 'json':
      return;
  }
}

/** The Arrow type of a column, once its values have been observed. */
function arrowType(column: Column): DataType {
  switch (column.kind) {
    case 'decimal':
      return column.wholeDigits + column.scale <= DECIMAL_PRECISION
        ? new Decimal(column.scale, DECIMAL_PRECISION, 128)
        : new Utf8();
    case 'timestamp':
      return column.milliseconds ? new TimestampMillisecond('UTC') : new Utf8();
    case 'date':
      return new DateDay();
    case 'enum':
      return new Dictionary(new Utf8(), new Int32());
    case 'boolean':
      return new Bool();
    case 'integer':
      return new Int64();
    case 'number':
      return new Float64();
    case 'struct':
      return new Struct(column.fields.map(([name, field]) => arrowField(name, field)));
    case 'list':
      return new List(arrowField('item', column.element));
    case 'text':
    case 'json':
      return new Utf8();
  }
}

function arrowField(name: string, column: Column): Field<DataType> {
  return new Field(name, arrowType(column), column.nullable);
}

/**
 * The value an Arrow builder takes for `value` in `column`. A decimal goes from its text to its
 * unscaled 128-bit integer (BigInt) and to four little-endian 32-bit words, never through a
 * JS number.
 */
function arrowValue(column: Column, type: DataType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'decimal':
      return type instanceof Decimal ? decimalWords(value as string, type.scale) : value;
    case 'timestamp':
      return type instanceof Utf8 ? value : Date.parse(value as string);
    case 'date':
      // Days since 1970-01-01; Date.parse reads a four-digit year as it is (0001 stays 0001).
      return Date.parse(`${value as string}T00:00:00Z`);
    case 'integer':
      return BigInt(value as number);
    case 'json':
      return JSON.stringify(value);
    case 'struct': {
      const children = (type as Struct).children as Field<DataType>[];
      return Object.fromEntries(
        column.fields.map(([name, field], i) => [
          name,
          arrowValue(field, children[i]!.type, (value as Record<string, unknown>)[name]),
        ]),
      );
    }
    case 'list': {
      const element = ((type as List).children as Field<DataType>[])[0]!.type;
      return (value as unknown[]).map((v) => arrowValue(column.element, element, v));
    }
    case 'text':
    case 'enum':
    case 'boolean':
    case 'number':
      return value;
  }
}

const WORD = 0xffffffffn;

/** A decimal text at `scale` as a Decimal128's four little-endian 32-bit words (two's complement). */
export function decimalWords(text: string, scale: number): Uint32Array {
  const [, sign, whole, fraction = ''] = DECIMAL.exec(text)!;
  const unscaled = BigInt(`${sign}${whole}${fraction.padEnd(scale, '0')}`);
  let bits = BigInt.asUintN(128, unscaled);
  const words = new Uint32Array(4);
  for (let i = 0; i < 4; i++) {
    // A 32-bit word of the integer, not an amount: exact as a number.
    words[i] = Number(bits & WORD);
    bits >>= 32n;
  }
  return words;
}

/**
 * The Arrow IPC stream of `answer` (a JSON answer its route's `schema` declares): one record
 * batch of the rows at `rows`, the rest of the answer under META_KEY.
 */
export function arrowStream(
  schema: z.ZodType,
  rows: readonly string[],
  answer: Record<string, unknown>,
): Uint8Array {
  let rowSchema = schema as unknown as ZodInternals;
  let rowValues: unknown = answer;
  for (const key of rows) {
    rowSchema = rowSchema._zod.def.shape![key]!;
    rowValues = (rowValues as Record<string, unknown>)[key];
  }
  const row = columnOf(rowSchema._zod.def.element!);
  if (row.kind !== 'struct' || !Array.isArray(rowValues))
    throw new Error(`${rows.join('.')} is not an array of objects`);
  for (const value of rowValues) observe(row, value);
  const fields = row.fields.map(([name, column]) => arrowField(name, column));
  const children = row.fields.map(([name, column], i): Data<DataType> => {
    const type = fields[i]!.type;
    const builder = makeBuilder<DataType>({ type, nullValues: [null] });
    for (const value of rowValues as Record<string, unknown>[])
      builder.append(arrowValue(column, type, value[name]));
    return builder.finish().flush() as Data<DataType>;
  });
  const metadata = new Map([
    [META_KEY, JSON.stringify(withoutRows(answer, rows))],
    [ROWS_KEY, rows.join('.')],
  ]);
  const type = new Struct<Record<string, DataType>>(fields);
  const batch = new RecordBatch(
    new Schema(fields, metadata),
    makeData({ type, length: rowValues.length, nullCount: 0, children }),
  );
  return tableToIPC(new Table(batch), 'stream');
}

/** The answer with the array at `rows` left out (copied along the path, not changed). */
function withoutRows(answer: Record<string, unknown>, rows: readonly string[]): unknown {
  const [key, ...rest] = rows;
  const { [key!]: inner, ...others } = answer;
  if (rest.length === 0) return others;
  return { ...others, [key!]: withoutRows(inner as Record<string, unknown>, rest) };
}
