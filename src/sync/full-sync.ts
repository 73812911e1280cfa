import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { ReadModel } from '../readmodel/read-model.ts';
import { faultPoint } from './fault-points.ts';
import { sourceIdentity } from './source-identity.ts';
import { readSyncState, writeSyncState } from './sync-state.ts';

/** Tables of the read model that are not copies of operational tables. */
const LOCAL_TABLES = new Set(['sync_state', 'sync_pending_slots', 'currencies', 'read_model_meta']);

export interface SyncProgress {
  /** Reading from PostgreSQL, or writing into DuckDB. */
  phase: 'copy' | 'load';
  table: string;
  tables: number;
  done: number;
  rows: number;
  /** PostgreSQL's estimate of the rows to copy, for an ETA. */
  estimatedRows: number;
}

export interface SyncResult {
  rows: number;
  tables: number;
  dataAsOf: Date;
  /** The position the copy corresponds to: the slot's consistent point, or the WAL position at the copy. */
  lsn: string;
  /** The snapshot the copy was made under (pg_snapshot text). */
  snapshot: string;
  elapsedMs: number;
}

export interface ColumnInfo {
  name: string;
  type: string;
}

export interface FullSyncOptions {
  onProgress?: (progress: SyncProgress) => void;
  tmpDir?: string;
  /**
   * Copy under the snapshot a replication slot exported at its creation, so the copy and
   * the slot's stream meet exactly at `lsn` with no gap and no overlap.
   */
  slot?: { name: string; snapshotName: string; lsn: string };
}

/**
 * Copies every operational table into the read model from one consistent PostgreSQL
 * snapshot (REPEATABLE READ, or the snapshot a new replication slot exported), staging each
 * table as CSV written by COPY TO STDOUT and read by DuckDB's CSV reader. All tables are
 * replaced in one DuckDB transaction, together with the sync position, so a reader sees the
 * old read model or the new one, never a mix.
 */
export async function fullSync(
  pool: pg.Pool,
  readModel: ReadModel,
  options: FullSyncOptions = {},
): Promise<SyncResult> {
  const started = Date.now();
  const dir = await mkdtemp(path.join(options.tmpDir ?? tmpdir(), 'ledgerline-sync-'));
  const duck = await readModel.connect();
  const client = await pool.connect();
  try {
    const tables = await readModelTables(duck);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    if (options.slot)
      await client.query(
        `SET TRANSACTION SNAPSHOT '${options.slot.snapshotName.replace(/'/g, "''")}'`,
      );
    const position = await client.query<{ as_of: Date; lsn: string; snapshot: string }>(
      `SELECT now() AS as_of, pg_current_wal_lsn()::text AS lsn, pg_current_snapshot()::text AS snapshot`,
    );
    const { as_of: asOf, lsn: walLsn, snapshot } = position.rows[0]!;
    const systemId = await sourceIdentity(client);
    const lsn = options.slot?.lsn ?? walLsn;

    const estimate = await client.query<{ n: string | null }>(
      'SELECT sum(greatest(reltuples, 0))::bigint::text AS n FROM pg_class WHERE oid = ANY($1::regclass[])',
      [[...tables.keys()]],
    );
    const estimatedRows = Number(estimate.rows[0]?.n ?? 0);
    let copied = 0;
    const staged: { table: string; file: string; columns: ColumnInfo[] }[] = [];
    for (const [table, columns] of tables) {
      const file = path.join(dir, `${table}.csv`);
      const select = columns.map((c) => pgExpression(c)).join(', ');
      const source = client.query(
        copyTo(`COPY (SELECT ${select} FROM ${table}) TO STDOUT WITH (FORMAT csv)`),
      );
      await pipeline(source, createWriteStream(file));
      copied += source.rowCount;
      staged.push({ table, file, columns });
      options.onProgress?.({
        phase: 'copy',
        table,
        tables: tables.size,
        done: staged.length,
        rows: copied,
        estimatedRows,
      });
      faultPoint('initial-load:mid-copy');
    }
    await client.query('COMMIT');

    let rows = 0;
    await duck.run('BEGIN TRANSACTION');
    try {
      const previous = await readSyncState(duck);
      for (const [index, { table, file, columns }] of staged.entries()) {
        await duck.run(`DELETE FROM ${table}`);
        if ((await stat(file)).size === 0) {
          options.onProgress?.({
            phase: 'load',
            table,
            tables: staged.length,
            done: index + 1,
            rows,
            estimatedRows: copied,
          });
          continue;
        }
        const types = columns.map((c) => `'${c.name}': '${csvType(c.type)}'`).join(', ');
        const values = columns
          .map((c) => (c.type.endsWith('[]') ? `CAST(${c.name} AS ${c.type})` : c.name))
          .join(', ');
        const result = await duck.run(
          `INSERT INTO ${table} SELECT ${values} FROM read_csv('${file.replace(/'/g, "''")}', header = false, allow_quoted_nulls = false, columns = {${types}})`,
        );
        rows += Number(result.rowsChanged);
        faultPoint('initial-load:mid-apply');
        options.onProgress?.({
          phase: 'load',
          table,
          tables: staged.length,
          done: index + 1,
          rows,
          estimatedRows: copied,
        });
      }
      await writeSyncState(duck, {
        sourceSystemId: systemId,
        dataAsOf: asOf,
        sourceLsn: lsn,
        slotName: options.slot?.name ?? null,
        sourceSnapshot: snapshot,
        fullLoads: (previous?.fullLoads ?? 0) + 1,
        rowsLoaded: BigInt(rows),
      });
      await duck.run('COMMIT');
    } catch (error) {
      await duck.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return {
      rows,
      tables: staged.length,
      dataAsOf: asOf,
      lsn,
      snapshot,
      elapsedMs: Date.now() - started,
    };
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
export async function readModelTables(duck: DuckDBConnection): Promise<Map<string, ColumnInfo[]>> {
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
export function pgExpression(column: ColumnInfo): string {
  if (column.type.endsWith('[]')) return `array_to_json(${column.name})::text`;
  if (column.type === 'JSON') return `${column.name}::text`;
  if (column.type === 'TIMESTAMP WITH TIME ZONE')
    return `to_char(${column.name} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US+00')`;
  return column.name;
}

function csvType(type: string): string {
  return type.endsWith('[]') ? 'VARCHAR' : type;
}
