import { documentAs } from '../schema-doc.ts';
import { z } from 'zod';
import {
  currencyCode,
  decimalText,
  isoDate,
  isoTimestamp,
  moneyText,
  uuid as uuidSchema,
} from '../value-schemas.ts';

// An entity's fields are declared once (docs/architecture.md, "Layers"): its name in the API,
// its store column, its kind of value and whether it may be null. The API record (zod schema,
// SELECT list, row -> record: src/api/entity-record.ts) and the export columns
// (src/exports/entity-columns.ts) derive from that declaration, in its order, which is the
// API's field order and the export's column order.

export type ValueKind =
  | 'uuid'
  | 'text'
  | 'enum'
  | 'currency'
  /** An amount in the currency of the field `currency` names: its scale. */
  | 'money'
  /** A rate or price: its currency's scale, more decimals kept when they are not zeros. */
  | 'rate'
  /** A plain decimal without trailing zeros (quantity, tax rate, exchange rate). */
  | 'decimal'
  | 'date'
  | 'timestamp'
  | 'boolean'
  | 'integer'
  /** A JSON document stored as json(b); the API answers it parsed. */
  | 'json';

/** Where a field appears: in both the API record and the export, or in one of them only. */
export type Edge = 'both' | 'api' | 'export';

export interface FieldSpec {
  kind: ValueKind;
  /** The store column, also the key of the field in a row the API reads. */
  column: string;
  /** SQL of the value when it is not `<alias>.<column>` (a joined table's column, a figure). */
  sql: string | undefined;
  /** Money and rates: the name of the field that holds their currency. */
  currency: string | undefined;
  nullable: boolean;
  edge: Edge;
}

/** One field: its spec and the schema of what the API answers for it. */
export class Field<S extends z.ZodType = z.ZodType, E extends Edge = Edge> {
  constructor(
    readonly spec: FieldSpec,
    readonly schema: S,
  ) {}

  nullable(): Field<z.ZodNullable<S>, E> {
    return new Field({ ...this.spec, nullable: true }, this.schema.nullable());
  }

  /** The store column, when it is not the field's name in snake_case. */
  column(column: string): Field<S, E> {
    return new Field({ ...this.spec, column }, this.schema);
  }

  /** The value's SQL over the entity's FROM, when it is not `<alias>.<column>`. */
  from(sql: string): Field<S, E> {
    return new Field({ ...this.spec, sql }, this.schema);
  }

  /** A field of the API record only, or of the export only. */
  only<T extends 'api' | 'export'>(edge: T): Field<S, T> {
    return new Field<S, T>({ ...this.spec, edge }, this.schema);
  }
}

const field = <S extends z.ZodType>(kind: ValueKind, schema: S, currency?: string) =>
  new Field<S, 'both'>(
    { kind, column: '', sql: undefined, currency, nullable: false, edge: 'both' },
    schema,
  );

export const uuid = () => field('uuid', uuidSchema);
export const text = () => field('text', z.string());
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  field('enum', z.enum(values));
export const currency = () => field('currency', currencyCode);
/** An amount in the currency of the field named `currencyField` (default `currency`). */
export const money = (currencyField = 'currency') => field('money', moneyText, currencyField);
export const rate = (currencyField = 'currency') => field('rate', moneyText, currencyField);
export const decimal = () => field('decimal', decimalText);
export const date = () => field('date', isoDate);
export const timestamp = () => field('timestamp', isoTimestamp);
export const boolean = () => field('boolean', z.boolean());
export const integer = () => field('integer', z.int());
/** A JSON object as the store keeps it (a snapshot of fields at the time); documented as an object. */
export const json = () =>
  field(
    'json',
    documentAs(z.unknown(), {
      type: 'object',
      description: 'The fields as they were when the snapshot was taken.',
    }),
  );

/** createdAt, updatedAt and deletedAt, as every audited entity has them. */
export const audit = {
  createdAt: timestamp(),
  updatedAt: timestamp(),
  deletedAt: timestamp().nullable(),
};

type Fields = Record<string, Field<z.ZodType, Edge>>;
type ApiShape<F extends Fields> = {
  [K in keyof F as F[K] extends Field<z.ZodType, 'export'> ? never : K]: F[K]['schema'];
};

export interface Entity<F extends Fields = Fields> {
  /** The alias of the entity's table in the SQL of its fields. */
  alias: string;
  /** The fields with their columns filled in, in declaration order. */
  fields: readonly (FieldSpec & { name: string })[];
  /** What the API answers: the fields of the record, in declaration order. */
  record: z.ZodObject<ApiShape<F>>;
}

/**
 * An entity from its fields in API order; a field's column is its name in snake_case unless
 * it says otherwise. A money or rate field must name a currency field the entity has.
 */
export function defineEntity<F extends Fields>(alias: string, fields: F): Entity<F> {
  const specs = Object.entries(fields).map(([name, f]) => ({
    ...f.spec,
    name,
    column: f.spec.column === '' ? snakeCase(name) : f.spec.column,
  }));
  for (const f of specs)
    if (f.currency !== undefined && !specs.some((c) => c.name === f.currency))
      throw new Error(`${f.name}: no currency field ${f.currency}`);
  const shape = Object.fromEntries(
    specs.filter((f) => f.edge !== 'export').map((f) => [f.name, fields[f.name]!.schema]),
  );
  return { alias, fields: specs, record: z.object(shape) as z.ZodObject<ApiShape<F>> };
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
