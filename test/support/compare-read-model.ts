import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import type { ColumnInfo } from '../../src/sync/copied-columns.ts';
import { readModelTables } from '../../src/sync/full-sync.ts';
import { DERIVED_TABLES } from '../../src/cli/derived-tables.ts';

/**
 * Every read-model table, row for row, as text that PostgreSQL and DuckDB both render the
 * same way; rows sorted, so the two sides compare with toEqual.
 */
export async function snapshotBoth(
  pool: pg.Pool,
  duck: DuckDBConnection,
): Promise<{ store: Record<string, string[]>; readModel: Record<string, string[]> }> {
  const tables = await readModelTables(duck, DERIVED_TABLES);
  const store: Record<string, string[]> = {};
  const readModel: Record<string, string[]> = {};
  for (const [table, columns] of tables) {
    const pgRows = await pool.query<{ r: string }>(
      `SELECT concat_ws(' | ', ${columns.map(pgText).join(', ')}) AS r FROM ${table}`,
    );
    store[table] = pgRows.rows.map((r) => r.r).sort();
    const duckRows = await duck.runAndReadAll(
      `SELECT concat_ws(' | ', ${columns.map(duckText).join(', ')}) AS r FROM ${table}`,
    );
    readModel[table] = duckRows
      .getRows()
      .map((r) => String(r[0]))
      .sort();
  }
  return { store, readModel };
}

function pgText(c: ColumnInfo): string {
  if (c.type === 'TIMESTAMP WITH TIME ZONE')
    return `coalesce(to_char(${c.name} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), '∅')`;
  if (c.type.endsWith('[]')) return `coalesce(array_to_json(${c.name})::text, '∅')`;
  return `coalesce(${c.name}::text, '∅')`;
}

function duckText(c: ColumnInfo): string {
  if (c.type === 'TIMESTAMP WITH TIME ZONE')
    return `coalesce(strftime(${c.name} AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S.%f'), '∅')`;
  if (c.type.endsWith('[]')) return `coalesce(CAST(to_json(${c.name}) AS VARCHAR), '∅')`;
  return `coalesce(CAST(${c.name} AS VARCHAR), '∅')`;
}
