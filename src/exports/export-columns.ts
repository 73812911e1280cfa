import type { Entity, ValueKind } from '../entities/entity.ts';

/**
 * A column of an export report is named as the API's record field (camelCase), so an export
 * compares field by field with what the API answers; its kind says how it is written in each
 * format.
 */
export type ColumnKind =
  | 'uuid'
  | 'text'
  | 'integer'
  | 'boolean'
  | 'date'
  | 'timestamp'
  /** An amount: the currency's scale in text formats, DECIMAL(18,4) in Parquet. */
  | 'money'
  /** A rate or price: the currency's scale, more decimals kept when they are not zeros. */
  | 'rate'
  /** A plain decimal without trailing zeros (quantity, tax rate, exchange rate). */
  | 'decimal'
  /** A decimal already at its scale (marginPercent). */
  | 'fixed'
  /** A list of names: joined with ';' in text formats, a LIST in Parquet. */
  | 'names';

export interface ExportColumn {
  /** The API's field name; also the column's name in every format. */
  name: string;
  /** SQL over the report's FROM. */
  sql: string;
  kind: ColumnKind;
  /** Money and rates: the SQL of the currency they are in. */
  currency?: string;
}

const KIND: Record<Exclude<ValueKind, 'json' | 'uuids' | 'texts'>, ColumnKind> = {
  uuid: 'uuid',
  text: 'text',
  enum: 'text',
  currency: 'text',
  money: 'money',
  rate: 'rate',
  decimal: 'decimal',
  date: 'date',
  timestamp: 'timestamp',
  boolean: 'boolean',
  integer: 'integer',
};

/**
 * The export columns of an entity (src/entities/): every field but those of the API record
 * or the snapshot only, in declaration order, which is the API's field order.
 */
export function entityColumns(entity: Entity): ExportColumn[] {
  const sqlOf = (name: string) => {
    const f = entity.fields.find((c) => c.name === name)!;
    return f.sql ?? `${entity.alias}.${f.column}`;
  };
  return entity.fields
    .filter((f) => f.edge === 'both' || f.edge === 'export')
    .map((f) => {
      if (f.kind === 'json' || f.kind === 'uuids' || f.kind === 'texts')
        throw new Error(`${f.name}: a ${f.kind} field has no export column`);
      if (f.currency === null)
        throw new Error(`${f.name}: an export column needs its currency field`);
      const column: ExportColumn = { name: f.name, sql: sqlOf(f.name), kind: KIND[f.kind] };
      return f.currency === undefined ? column : { ...column, currency: sqlOf(f.currency) };
    });
}
