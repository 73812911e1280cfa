import type { z } from 'zod';
import type { Entity, FieldSpec } from '../entities/entity.ts';
import { unanswerableValue } from './errors.ts';
import { bool, decimal, integer, money, rate, strings, text, timestamp } from './record-values.ts';

// The API's side of an entity declaration (src/entities/): the SELECT list of its record's
// columns and the function that turns such a row into the record.

type ApiField = FieldSpec & { name: string };

const apiFields = (entity: Entity) =>
  entity.fields.filter((f) => f.edge === 'both' || f.edge === 'api');
const sqlOf = (entity: Entity, f: ApiField) => f.sql ?? `${entity.alias}.${f.column}`;

/** Kinds DuckDB hands over as text only when cast: dates, decimals and JSON. */
const CAST_TO_TEXT = new Set(['date', 'money', 'rate', 'decimal', 'json']);

/** The SELECT list of an entity's API fields, each named by its column. */
export function selectColumns(entity: Entity): string {
  return apiFields(entity)
    .map((f) => {
      const sql = sqlOf(entity, f);
      if (CAST_TO_TEXT.has(f.kind)) return `CAST(${sql} AS VARCHAR) AS ${f.column}`;
      return sql.endsWith(`.${f.column}`) ? sql : `${sql} AS ${f.column}`;
    })
    .join(', ');
}

export interface RowContext {
  /**
   * The currency of money and rates whose currency field is not in the row (a parent's), or
   * that have none (their currency is the context's).
   */
  currency?: string;
  /** The currency when the row's currency field is null (a client's own: the workspace's). */
  defaultCurrency?: string;
}

/**
 * The function that turns a row of `selectColumns(entity)` (or any row with those columns, as
 * PostgreSQL returns them) into the API record, its fields in declaration order. A value its
 * reader refuses throws `unanswerableValue`, naming the field: a 500 that says what the record
 * cannot carry, and a write that meets it rolls back (src/api/write.ts).
 */
export function rowToRecord<F extends Entity>(entity: F) {
  const fields = apiFields(entity);
  const byName = new Map(entity.fields.map((f) => [f.name, f]));
  return (row: Record<string, unknown>, context: RowContext = {}): z.infer<F['record']> => {
    const record: Record<string, unknown> = {};
    for (const f of fields) {
      const value = row[f.column];
      try {
        record[f.name] = read(f, value, () => {
          const holder = f.currency == null ? undefined : byName.get(f.currency)!;
          const own = holder === undefined ? null : text(row[holder.column]);
          return context.currency ?? own ?? context.defaultCurrency ?? null;
        });
      } catch (error) {
        throw unanswerableValue(f.name, error);
      }
    }
    return record as z.infer<F['record']>;
  };
}

function read(f: ApiField, value: unknown, currencyOf: () => string | null): unknown {
  switch (f.kind) {
    case 'uuid':
    case 'text':
    case 'enum':
    case 'currency':
    case 'date':
      return text(value);
    case 'timestamp':
      return timestamp(value);
    case 'money':
    case 'rate': {
      const currency = currencyOf();
      if (currency === null) return null;
      return f.kind === 'money' ? money(value, currency) : rate(value, currency);
    }
    case 'decimal':
      return decimal(value);
    case 'boolean':
      return bool(value);
    case 'integer':
      return integer(value);
    case 'uuids':
    case 'texts':
      return strings(value);
    case 'json': {
      // PostgreSQL's reads hand JSON over parsed; DuckDB's as text.
      if (value !== null && typeof value === 'object') return value;
      const t = text(value);
      return t === null ? null : (JSON.parse(t) as unknown);
    }
  }
}
