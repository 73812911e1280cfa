import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { ReadModel } from '../readmodel/read-model.ts';

/** Tables of the read model that are not copies of operational tables. */
const LOCAL_TABLES = new Set(['sync_state', 'currencies']);

export interface SyncProgress {
  table: string;
  tables: number;
  done: number;
  rows: number;
}

export interface SyncResult {
  rows: number;
  tables: number;
  dataAsOf: Date;
  elapsedMs: number;
}

interface ColumnInfo {
  name: string;
  type: string;
}

/**
 * Copies every operational table into the read model from one consistent PostgreSQL
 * snapshot (REPEATABLE READ), staging each table as CSV written by COPY TO STDOUT and read
 * by DuckDB's CSV reader. All tables are replaced in one DuckDB transaction, together with
 * the sync position, so a reader sees the old read model or the new one, never a mix.
 */
export async function fullSync(
  pool: pg.Pool,
  readModel: ReadModel,
  options: { onProgress?: (progress: SyncProgress) => void; tmpDir?: string } = {},
): Promise<SyncResult> {
  const started = Date.now();
  const dir = await mkdtemp(path.join(options.tmpDir ?? tmpdir(), 'ledgerline-sync-'));
  const duck = await readModel.connect();
  const client = await pool.connect();
  try {
    const tables = await readModelTables(duck);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const position = await client.query<{ as_of: Date; lsn: string; system_id: string }>(
      `SELECT now() AS as_of, pg_current_wal_lsn()::text AS lsn, (SELECT system_identifier::text FROM pg_control_system()) AS system_id`,
    );
    const { as_of: asOf, lsn, system_id: systemId } = position.rows[0]!;

    const staged: { table: string; file: string; columns: ColumnInfo[] }[] = [];
    for (const [table, columns] of tables) {
      const file = path.join(dir, `${table}.csv`);
      const select = columns.map((c) => pgExpression(c)).join(', ');
      await pipeline(
        client.query(copyTo(`COPY (SELECT ${select} FROM ${table}) TO STDOUT WITH (FORMAT csv)`)),
        createWriteStream(file),
      );
      staged.push({ table, file, columns });
    }
    await client.query('COMMIT');

    let rows = 0;
    await duck.run('BEGIN TRANSACTION');
    try {
      for (const [index, { table, file, columns }] of staged.entries()) {
        await duck.run(`DELETE FROM ${table}`);
        const types = columns.map((c) => `'${c.name}': '${csvType(c.type)}'`).join(', ');
        const values = columns
          .map((c) => (c.type.endsWith('[]') ? `CAST(${c.name} AS ${c.type})` : c.name))
          .join(', ');
        const result = await duck.run(
          `INSERT INTO ${table} SELECT ${values} FROM read_csv('${file.replace(/'/g, "''")}', header = false, allow_quoted_nulls = false, columns = {${types}})`,
        );
        rows += Number(result.rowsChanged);
        options.onProgress?.({ table, tables: staged.length, done: index + 1, rows });
      }
      await duck.run('DELETE FROM sync_state');
      await duck.run(
        `INSERT INTO sync_state VALUES (1, $system, $asOf::TIMESTAMPTZ, $lsn, now(), coalesce((SELECT max(full_loads) FROM sync_state), 0) + 1, $rows)`,
        { system: systemId, asOf: asOf.toISOString(), lsn, rows },
      );
      await duck.run('COMMIT');
    } catch (error) {
      await duck.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return { rows, tables: staged.length, dataAsOf: asOf, elapsedMs: Date.now() - started };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
    duck.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The copied tables and their columns, read from the read model's own schema (sql/duckdb/tables.sql). */
async function readModelTables(duck: DuckDBConnection): Promise<Map<string, ColumnInfo[]>> {
  const reader = await duck.runAndReadAll(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'main' AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')
     ORDER BY table_name, ordinal_position`,
  );
  const tables = new Map<string, ColumnInfo[]>();
  for (const [table, name, type] of reader.getRows() as [string, string, string][]) {
    if (LOCAL_TABLES.has(table)) continue;
    tables.set(table, [...(tables.get(table) ?? []), { name, type }]);
  }
  return tables;
}

/** How PostgreSQL writes a column so that DuckDB's CSV reader reads it back exactly. */
function pgExpression(column: ColumnInfo): string {
  if (column.type.endsWith('[]')) return `array_to_json(${column.name})::text`;
  if (column.type === 'JSON') return `${column.name}::text`;
  if (column.type === 'TIMESTAMP WITH TIME ZONE')
    return `to_char(${column.name} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US+00')`;
  return column.name;
}

function csvType(type: string): string {
  return type.endsWith('[]') ? 'VARCHAR' : type;
}
