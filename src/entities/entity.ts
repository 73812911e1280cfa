import { documentAs } from '../schema-doc.ts';
import { z } from 'zod';
import {
  currencyCode,
  decimalText,
  isoDate,
  isoTimestamp,
  moneyText,
  snapshotCount,
  snapshotCurrency,
  snapshotDate,
  snapshotDecimal,
  snapshotEmptyAsNull,
  snapshotOrNull,
  snapshotText,
  SNAPSHOT_TEXT_MAX,
  SNAPSHOT_JSON_MAX,
  snapshotTimestamp,
  snapshotUuid,
  uuid as uuidSchema,
} from '../value-schemas.ts';

// An entity's fields are declared once (docs/architecture.md, "Layers"): its name in the API
// and the snapshot, its store column, its kind of value, whether it may be null, and what the
// snapshot takes for it. The API record (zod schema, SELECT list, row -> record:
// src/api/entity-record.ts) and the export columns (src/exports/export-columns.ts) derive from
// that declaration, in its order, which is the API's field order and the export's column
// order; the snapshot record and its table's columns (src/snapshot/records.ts, tables.ts)
// derive from it in the entity's snapshot order, which is its store table's column order.

export type ValueKind =
  | 'uuid'
  | 'text'
  | 'enum'
  | 'currency'
  /** An amount in the currency of the field `currency` names (or the row context's): its scale. */
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
  | 'json'
  /** A list of uuids (uuid[]). */
  | 'uuids'
  /** A list of texts (text[]). */
  | 'texts';

/**
 * Where a field appears besides the snapshot (whose fields the entity's snapshot list names):
 * in both the API record and the export, in one of them only, or in neither.
 */
export type Edge = 'both' | 'api' | 'export' | 'snapshot';

export interface FieldSpec {
  kind: ValueKind;
  /** The store column, also the key of the field in a row the API reads. */
  column: string;
  /** SQL of the value when it is not `<alias>.<column>` (a joined table's column, a figure). */
  sql: string | undefined;
  /**
   * Money and rates: the name of the field that holds their currency, or null when the row
   * context gives it (a parent's, the workspace's).
   */
  currency: string | null | undefined;
  nullable: boolean;
  /** The API may leave the field out (pricing a Member token does not see). */
  optional: boolean;
  edge: Edge;
}

/** What a snapshot takes for a field: nullable or left out, as its spec and schema say. */
type SnapshotNullable<P extends z.ZodType> = z.ZodType<
  z.output<P> | null,
  z.input<P> | null | undefined
>;

/** One field: its spec, the schema of what the API answers and what the snapshot takes for it. */
export class Field<
  S extends z.ZodType = z.ZodType,
  E extends Edge = Edge,
  P extends z.ZodType = z.ZodType,
> {
  constructor(
    /** Its edge is in its type, so the API record's type leaves out the fields it lacks. */
    readonly spec: FieldSpec & { edge: E },
    readonly schema: S,
    readonly snapshotSchema: P,
  ) {}

  /** May be null; in a snapshot also left out, and empty text is null there. */
  nullable(): Field<z.ZodNullable<S>, E, SnapshotNullable<P>> {
    const snapshot =
      this.spec.kind === 'text'
        ? snapshotEmptyAsNull(this.snapshotSchema as z.ZodType<string>)
        : snapshotOrNull(this.snapshotSchema);
    return new Field(
      { ...this.spec, nullable: true },
      this.schema.nullable(),
      snapshot as SnapshotNullable<P>,
    );
  }

  /** The API may leave the field out of a record. */
  optional(): Field<z.ZodOptional<S>, E, P> {
    return new Field({ ...this.spec, optional: true }, this.schema.optional(), this.snapshotSchema);
  }

  /** The store column, when it is not the field's name in snake_case. */
  column(column: string): Field<S, E, P> {
    return new Field({ ...this.spec, column }, this.schema, this.snapshotSchema);
  }

  /** The value's SQL over the entity's FROM, when it is not `<alias>.<column>`. */
  from(sql: string): Field<S, E, P> {
    return new Field({ ...this.spec, sql }, this.schema, this.snapshotSchema);
  }

  /** A field of the API record only, of the export only, or of the snapshot only. */
  only<T extends 'api' | 'export' | 'snapshot'>(edge: T): Field<S, T, P> {
    return new Field<S, T, P>({ ...this.spec, edge }, this.schema, this.snapshotSchema);
  }

  /** What a snapshot takes for the field when it is more than its kind (a range, a set). */
  inSnapshot<T extends z.ZodType>(schema: T): Field<S, E, T> {
    return new Field({ ...this.spec }, this.schema, schema);
  }

  /** The value a snapshot record that leaves the field out has. */
  byDefault(value: z.util.NoUndefined<z.output<P>>): Field<S, E, z.ZodDefault<P>> {
    return new Field({ ...this.spec }, this.schema, this.snapshotSchema.default(value));
  }
}

const field = <S extends z.ZodType, P extends z.ZodType>(
  kind: ValueKind,
  schema: S,
  snapshot: P,
  currency?: string | null,
) =>
  new Field<S, 'both', P>(
    {
      kind,
      column: '',
      sql: undefined,
      currency,
      nullable: false,
      optional: false,
      edge: 'both',
    },
    schema,
    snapshot,
  );

export const uuid = () => field('uuid', uuidSchema, snapshotUuid);
/**
 * Text of at most `max` characters (a snapshot's limit; the store's CHECK and the API's body
 * limit for the column are the same number: docs/decisions.md, "Text limits").
 */
export const text = (max = SNAPSHOT_TEXT_MAX) => field('text', z.string(), snapshotText.max(max));
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  field('enum', z.enum(values), z.enum(values));
export const currency = () => field('currency', currencyCode, snapshotCurrency);
/**
 * An amount in the currency of the field named `currencyField` (default `currency`); null:
 * in the currency the row context gives (a parent's). A snapshot checks its scale apart.
 */
export const money = (currencyField: string | null = 'currency') =>
  field('money', moneyText, snapshotDecimal(), currencyField);
export const rate = (currencyField: string | null = 'currency') =>
  field('rate', moneyText, snapshotDecimal(), currencyField);
export const decimal = () => field('decimal', decimalText, snapshotDecimal());
export const date = () => field('date', isoDate, snapshotDate);
export const timestamp = () => field('timestamp', isoTimestamp, snapshotTimestamp);
export const boolean = () => field('boolean', z.boolean(), z.boolean());
export const integer = () => field('integer', z.int(), snapshotCount);
export const uuids = () => field('uuids', z.array(uuidSchema), z.array(snapshotUuid));
export const texts = () => field('texts', z.array(z.string()), z.array(snapshotText));
/** A JSON object as the store keeps it (a snapshot of fields at the time); documented as an object. */
export const json = () =>
  field(
    'json',
    documentAs(z.unknown(), {
      type: 'object',
      description: 'The fields as they were when the snapshot was taken.',
    }),
    z
      .record(z.string(), z.unknown())
      .refine(
        (value) => JSON.stringify(value).length <= SNAPSHOT_JSON_MAX,
        `must be at most ${SNAPSHOT_JSON_MAX.toLocaleString('en-US')} characters as JSON`,
      ),
  );

/** When a record was made; a snapshot may leave it out (the import time is taken). */
export const createdAt = () => timestamp().inSnapshot(snapshotTimestamp.optional());

/** createdAt, updatedAt and deletedAt, as every audited entity has them. */
export const audit = {
  createdAt: createdAt(),
  updatedAt: createdAt(),
  deletedAt: timestamp().nullable(),
};

type Fields = Record<string, Field<z.ZodType, Edge>>;
type Name<F> = keyof F & string;
type ApiShape<F extends Fields> = {
  [
    K in keyof F as F[K] extends Field<z.ZodType, 'export' | 'snapshot'> ? never : K
  ]: F[K]['schema'];
};

/** A column of the entity's table that the importer fills (the workspace, a parent, a position). */
export interface Filled<N extends string = string> {
  filled: N;
}
export const filled = <const N extends string>(name: N): Filled<N> => ({ filled: name });

/** The snapshot's columns of an entity's table, in order: a field of the record, or one filled. */
type SnapshotColumns<F> = readonly (Name<F> | Filled<Name<F>>)[];
type SnapshotShape<F extends Fields, C> = {
  [K in Extract<C extends readonly (infer T)[] ? T : never, string>]: K extends keyof F
    ? F[K]['snapshotSchema']
    : never;
};

export type EntityField = FieldSpec & { name: string };

export interface Entity<
  F extends Fields = Fields,
  C extends SnapshotColumns<F> = SnapshotColumns<F>,
> {
  /** The alias of the entity's table in the SQL of its fields. */
  alias: string;
  /** The fields with their columns filled in, in declaration order. */
  fields: readonly EntityField[];
  /** What the API answers: the fields of the record, in declaration order. */
  record: z.ZodObject<ApiShape<F>>;
  /** The snapshot's side: its table's columns in order, and the record's fields' schemas. */
  snapshot: {
    columns: readonly (EntityField & { filled: boolean })[];
    shape: SnapshotShape<F, C>;
  };
}

/**
 * An entity from its fields in API order, and the columns of its table that a snapshot fills
 * in their order; a field's column is its name in snake_case unless it says otherwise. A
 * money or rate field must name a currency field the entity has.
 */
export function defineEntity<F extends Fields, const C extends SnapshotColumns<F> = readonly []>(
  alias: string,
  fields: F,
  snapshot?: C,
): Entity<F, C> {
  const specs = Object.entries(fields).map(([name, f]) => ({
    ...f.spec,
    name,
    column: f.spec.column === '' ? snakeCase(name) : f.spec.column,
  }));
  const byName = new Map(specs.map((f) => [f.name, f]));
  for (const f of specs)
    if (typeof f.currency === 'string' && !byName.has(f.currency))
      throw new Error(`${f.name}: no currency field ${f.currency}`);
  const shape = Object.fromEntries(
    specs
      .filter((f) => f.edge === 'both' || f.edge === 'api')
      .map((f) => [f.name, fields[f.name]!.schema]),
  );
  const columns = (snapshot ?? []).map((c) => {
    const name = typeof c === 'string' ? c : c.filled;
    const spec = byName.get(name);
    if (spec === undefined) throw new Error(`snapshot column ${name}: no such field`);
    return { ...spec, filled: typeof c !== 'string' };
  });
  const snapshotShape = Object.fromEntries(
    columns.filter((c) => !c.filled).map((c) => [c.name, fields[c.name]!.snapshotSchema]),
  );
  return {
    alias,
    fields: specs,
    record: z.object(shape) as z.ZodObject<ApiShape<F>>,
    snapshot: { columns, shape: snapshotShape as SnapshotShape<F, C> },
  };
}

/**
 * `shape` with the entries of `nested` (a record's lists: lines, rates) before its audit
 * fields, as both the API and the snapshot place them; at its end when it has none.
 */
export function beforeAudit<A extends object, B extends object>(shape: A, nested: B): A & B {
  const entries = Object.entries(shape);
  let at = entries.findIndex(([key]) => key === 'createdAt');
  if (at === -1) at = entries.length;
  return Object.fromEntries([
    ...entries.slice(0, at),
    ...Object.entries(nested),
    ...entries.slice(at),
  ]) as A & B;
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
