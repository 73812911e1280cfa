import { createWriteStream } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { processRuns } from '../processes.ts';
import type { DerivedTables } from '../readmodel/derived-tables.ts';
import { dropIndexes, type ReadModel } from '../readmodel/read-model.ts';
import { ApplyError, findBadValue } from './apply-error.ts';
import { asText, castText, PG_COPY_CSV, readCsv } from './csv-dialect.ts';
import { columnNames, keyColumns, type ColumnInfo } from './copied-columns.ts';
import { faultPoint } from './fault-points.ts';
import { PUBLICATION } from './replication/slot.ts';
import { sourceIdentity } from './source-identity.ts';
import { readSyncState, writeSyncState } from '../readmodel/sync-state.ts';

/**
 * Tables of the read model that are not copies of operational tables, besides those of the
 * derived parts.
 */
const LOCAL_TABLES = new Set<string>([
  'sync_state',
  'sync_pending_slots',
  'currencies',
  'read_model_meta',
]);

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
  /** Of which rebuilding the derived parts from the loaded rows. */
  derivedMs: number;
}

export interface FullSyncOptions {
  onProgress?: (progress: SyncProgress) => void;
  /** Told how long each derived part's build took, and then the read model's indexes ('indexes'). */
  onBuilt?: (part: string, ms: number) => void;
  tmpDir?: string;
  /**
   * Copy under the snapshot a replication slot exported at its creation, so the copy and
   * the slot's stream meet exactly at `lsn` with no gap and no overlap.
   */
  slot?: { name: string; snapshotName: string; lsn: string };
  /** Heap pages per slice (default CHUNK_PAGES); tests make it tiny to cut small tables. */
  chunkPages?: number;
  /** PostgreSQL connections copying slices at once, all under the same snapshot (default 2). */
  copyConnections?: number;
  /**
   * The publication the stream follows, when not the default one: each table is copied as it
   * publishes it (its row filter, PostgreSQL 15+), and a table it leaves out not at all, so
   * the copy and the stream hold the same rows.
   */
  publication?: string;
}

/** A slice of a table's heap, by block number (TID range scan), copied as one CSV file. */
export interface Chunk {
  table: string;
  columns: ColumnInfo[];
  where: string;
}

// Tables larger than this many 8 KiB pages are copied in slices of that size, so DuckDB can
// load one slice while PostgreSQL writes the next, and no temporary file grows huge.
export const CHUNK_PAGES = 16_384;

/**
 * Copies every operational table into the read model from one consistent PostgreSQL
 * snapshot (REPEATABLE READ, or the snapshot a new replication slot exported). Tables are
 * cut into slices by heap block; PostgreSQL writes each slice as CSV (COPY TO STDOUT) to a
 * temporary file while DuckDB's parallel CSV reader loads the previous one, so the two
 * overlap. All tables are replaced in one DuckDB transaction, together with the sync
 * position, so a reader sees the old read model or the new one, never a mix. The `derived`
 * parts are rebuilt from the loaded rows, in their order.
 */
export async function fullSync(
  pool: pg.Pool,
  readModel: ReadModel,
  derived: readonly DerivedTables[],
  options: FullSyncOptions = {},
): Promise<SyncResult> {
  const started = Date.now();
  const parent = options.tmpDir ?? tmpdir();
  await removeStaleLoads(parent);
  const dir = await mkdtemp(path.join(parent, `${LOAD_DIR_PREFIX}${process.pid}-`));
  const duck = await readModel.connect();
  const client = await pool.connect();
  const helpers: pg.PoolClient[] = [];
  let duckOpen = false;
  try {
    const tables = await readModelTables(duck, derived);
    const serverWrites = await serverWritesInto(client, dir);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    if (options.slot) {
      await client.query(
        `SET TRANSACTION SNAPSHOT '${options.slot.snapshotName.replace(/'/g, "''")}'`,
      );
    }
    await client.query(VALUES_AS_DUCKDB_READS_THEM);
    const position = await client.query<{ as_of: Date; lsn: string; snapshot: string }>(
      `SELECT now() AS as_of, pg_current_wal_lsn()::text AS lsn, pg_current_snapshot()::text AS snapshot`,
    );
    const { as_of: asOf, lsn: walLsn, snapshot } = position.rows[0]!;
    const systemId = await sourceIdentity(client);
    const lsn = options.slot?.lsn ?? walLsn;
    // More connections copy other slices under the very same snapshot (SET TRANSACTION
    // SNAPSHOT), so together they read one consistent state.
    const shared =
      options.slot?.snapshotName ??
      (await client.query<{ name: string }>('SELECT pg_export_snapshot() AS name')).rows[0]!.name;
    for (let i = 1; i < (options.copyConnections ?? 2); i++) {
      const helper = await pool.connect();
      helpers.push(helper);
      await helper.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await helper.query(`SET TRANSACTION SNAPSHOT '${shared.replace(/'/g, "''")}'`);
      await helper.query(VALUES_AS_DUCKDB_READS_THEM);
    }
    const planned = await planChunks(client, tables, options.chunkPages ?? CHUNK_PAGES);
    const { estimatedRows } = planned;
    const chunks =
      options.publication === undefined || options.publication === PUBLICATION
        ? planned.chunks
        : filterChunks(planned.chunks, await publishedRows(client, options.publication));

    await duck.run('BEGIN TRANSACTION');
    duckOpen = true;
    const previous = await readSyncState(duck);
    // A load commits each slice as it is loaded: in one transaction the copy's commit needed
    // more than the read model's 1 GB at 10M entries (21M rows). The read model answers nothing
    // meanwhile (ReadModelStatus.reloading, from the loader), and the sync position is gone
    // from the first commit on, so a crash before the end loads again at the next start.
    await duck.run('DELETE FROM sync_state');
    // Every row is replaced: the indexes are built again from the loaded rows at the end
    // (ReadModel.createIndexes), rather than kept up to date row by row.
    await dropIndexes(duck);
    for (const table of tables.keys()) await duck.run(`DELETE FROM ${table}`);

    const copiers = [client, ...helpers];
    const files = new Channel<{ chunk: Chunk; file: string }>(copiers.length + 1);
    let copied = 0;
    let rows = 0;
    let done = 0;
    let next = 0;
    let failed = false;
    const copy = async (connection: pg.PoolClient) => {
      while (next < chunks.length && !failed) {
        const index = next++;
        const chunk = chunks[index]!;
        const file = path.join(dir, `${index}.csv`);
        const select = `SELECT ${chunk.columns.map(pgExpression).join(', ')} FROM ${chunk.table} ${chunk.where}`;
        if (serverWrites) {
          const result = await connection.query(
            `COPY (${select}) TO ${sqlText(file)} WITH (${PG_COPY_CSV})`,
          );
          copied += result.rowCount ?? 0;
        } else {
          const source = connection.query(
            copyTo(`COPY (${select}) TO STDOUT WITH (${PG_COPY_CSV})`),
          );
          await pipeline(source, createWriteStream(file));
          copied += source.rowCount;
        }
        options.onProgress?.({
          phase: 'copy',
          table: chunk.table,
          tables: chunks.length,
          done: index + 1,
          rows: copied,
          estimatedRows,
        });
        faultPoint('initial-load:mid-copy');
        await files.put({ chunk, file });
      }
    };
    const copyAll = async () => {
      const results = await Promise.allSettled(
        copiers.map((connection) =>
          copy(connection).catch((error: unknown) => {
            failed = true;
            throw error;
          }),
        ),
      );
      files.close();
      const failure = results.find((r) => r.status === 'rejected');
      if (failure) throw failure.reason;
    };
    const load = async () => {
      for await (const { chunk, file } of files) {
        const { size } = await stat(file);
        if (size > 0) {
          // Read as text and converted like the stream's changes (csv-dialect.ts): as fast
          // as read_csv's typed columns here, and strict where those are not.
          const source = readCsv(file, size, asText(chunk.columns));
          const values = chunk.columns.map((c) => castText(c.name, c)).join(', ');
          const result = await duck
            .run(
              `INSERT INTO ${chunk.table} (${columnNames(chunk.columns)}) SELECT ${values} FROM ${source}`,
            )
            .catch(async (error: unknown) => {
              throw await sliceError(duck, chunk, source, error);
            });
          rows += Number(result.rowsChanged);
          faultPoint('initial-load:mid-apply');
          await duck.run('COMMIT');
          await duck.run('BEGIN TRANSACTION');
        }
        await rm(file);
        options.onProgress?.({
          phase: 'load',
          table: chunk.table,
          tables: chunks.length,
          done: ++done,
          rows,
          estimatedRows,
        });
      }
    };
    await Promise.all([copyAll(), load().catch((error: unknown) => files.fail(error))]);
    for (const connection of copiers) await connection.query('COMMIT');

    const derivedStarted = Date.now();
    // The copy commits without a sync position (a crash from here on leaves a read model that
    // the next start loads again), then the parts are built from the committed rows and the
    // position is written with the last of them. Inside the copy's transaction the summaries
    // read millions of uncommitted rows three times slower, and DuckDB once failed there with
    // a currency guard that holds on the same rows committed (docs/sync.md).
    await duck.run('DELETE FROM sync_state');
    await duck.run('COMMIT');
    duckOpen = false;
    faultPoint('initial-load:before-summaries');
    // A part built alone commits before the others start: what its temporary tables held is
    // freed only then.
    const build = async (name: string, work: () => Promise<void>) => {
      const started = performance.now();
      await work();
      options.onBuilt?.(name, performance.now() - started);
    };
    for (const part of derived)
      if (part.rebuildAlone) {
        await build(part.name, async () => {
          await duck.run('BEGIN TRANSACTION');
          duckOpen = true;
          await part.rebuild(duck);
          await duck.run('COMMIT');
          duckOpen = false;
        });
      }
    await duck.run('BEGIN TRANSACTION');
    duckOpen = true;
    for (const part of derived)
      if (!part.rebuildAlone) await build(part.name, () => part.rebuild(duck));
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
    duckOpen = false;
    // The indexes last, each committed on its own (ReadModel.createIndexes runs one statement
    // each): an index built inside a transaction is held whole in memory until its commit (460
    // MB for 10M UUIDs), and the five of a 10M-entry read model (1,070 MB) were more than its
    // memory limit. Committed, DuckDB writes them out and reads back only what a lookup needs.
    // A crash before they are made leaves them to the next open, which makes any missing.
    await build('indexes', () => readModel.createIndexes(duck));
    const derivedMs = Date.now() - derivedStarted;
    return {
      rows,
      tables: tables.size,
      dataAsOf: asOf,
      lsn,
      snapshot,
      elapsedMs: Date.now() - started,
      derivedMs,
    };
  } catch (error) {
    if (duckOpen) await duck.run('ROLLBACK').catch(() => undefined);
    for (const connection of [client, ...helpers])
      await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
    for (const helper of helpers) helper.release();
    duck.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

/** A load's folder of slices: `ledgerline-sync-<pid>-<random>`, named after its process. */
export const LOAD_DIR_PREFIX = 'ledgerline-sync-';
const LOAD_DIR_NAME = new RegExp(`^${LOAD_DIR_PREFIX}(\\d+)-`);

/**
 * Removes the slice folders that loads of processes no longer running left in `parent`: a
 * load removes its own when it ends, but not when its process is killed (a crash, SIGKILL,
 * the machine going down), and a large workspace's slices are gigabytes. A folder of a
 * running process, this one's included, is left alone; so is one whose process cannot be
 * told (no pid in its name, or no permission to ask).
 */
export async function removeStaleLoads(parent: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(LOAD_DIR_NAME.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid === process.pid || processRuns(pid)) continue;
    await rm(path.join(parent, name), { recursive: true, force: true });
  }
}

/**
 * Whether PostgreSQL can write the slices into `dir` itself (`COPY … TO '<file>'`): the
 * server runs on this machine and the role may write server files (superuser or
 * pg_write_server_files), as with the embedded store. That skips passing every row through
 * Node: a 775k-row slice takes 2.7 s instead of 3.6 s, with 1.4 s less CPU in this process.
 * Probed by writing a file and reading it back; anything else copies through STDOUT.
 */
async function serverWritesInto(client: pg.PoolClient, dir: string): Promise<boolean> {
  const probe = path.join(dir, 'probe.csv');
  const marker = `ledgerline-${process.pid}-${Date.now()}`;
  try {
    // The directory is ours and private to this load; the server's user must enter it.
    await chmod(dir, 0o777);
    await client.query(`COPY (SELECT ${sqlText(marker)}) TO ${sqlText(probe)} WITH (FORMAT csv)`);
    const found = (await readFile(probe, 'utf8')).trim() === marker;
    await rm(probe, { force: true });
    return found;
  } catch {
    return false;
  }
}

/**
 * The copy's session writes values in the forms DuckDB reads back exactly, whatever the
 * server's or database's defaults: timestamps in UTC (another zone gives offsets such as
 * +00:19:32 and, before year 1 in that zone, a "BC" suffix) and dates as ISO.
 */
const VALUES_AS_DUCKDB_READS_THEM = "SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'";

/**
 * The failure of loading one slice, with the row holding a value the read model cannot take
 * when there is one (read again as text once the aborted transaction is rolled back).
 */
async function sliceError(
  duck: DuckDBConnection,
  chunk: Chunk,
  source: string,
  error: unknown,
): Promise<ApplyError> {
  await duck.run('ROLLBACK').catch(() => undefined);
  const keys = keyColumns(chunk.table);
  const bad = await findBadValue(duck, source, chunk.columns, keys, false).catch(() => undefined);
  return new ApplyError(chunk.table, bad, error);
}

/**
 * How `publication` publishes each table: its row filter, or null for every row; a table it
 * does not publish is absent.
 */
async function publishedRows(
  client: pg.PoolClient,
  publication: string,
): Promise<Map<string, string | null>> {
  const { rows } = await client.query<{ tablename: string; rowfilter: string | null }>(
    `SELECT tablename, rowfilter FROM pg_publication_tables
     WHERE pubname = $1 AND schemaname = 'public'`,
    [publication],
  );
  if (rows.length === 0)
    throw new Error(`PUBLICATION ${publication} does not exist or publishes no table`);
  return new Map(rows.map((r) => [r.tablename, r.rowfilter]));
}

/** The slices of each table restricted to the rows the publication publishes. */
function filterChunks(chunks: Chunk[], published: Map<string, string | null>): Chunk[] {
  return chunks.map((chunk) => {
    const filter = published.has(chunk.table) ? published.get(chunk.table) : 'false';
    if (filter === null || filter === undefined) return chunk;
    const where = chunk.where === '' ? `WHERE (${filter})` : `${chunk.where} AND (${filter})`;
    return { ...chunk, where };
  });
}

/** A string literal for statements that take no parameters (COPY's file name). */
function sqlText(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Every table as one or more heap slices, and PostgreSQL's estimate of the rows in all. */
export async function planChunks(
  client: pg.PoolClient,
  tables: Map<string, ColumnInfo[]>,
  chunkPages: number,
): Promise<{ chunks: Chunk[]; estimatedRows: number }> {
  const sizes = await client.query<{ name: string; pages: string; estimate: string }>(
    `SELECT c.relname AS name, (pg_relation_size(c.oid) / current_setting('block_size')::int)::text AS pages,
            greatest(c.reltuples, 0)::bigint::text AS estimate
     FROM pg_class c WHERE c.oid = ANY($1::regclass[])`,
    [[...tables.keys()]],
  );
  const chunks: Chunk[] = [];
  let estimatedRows = 0;
  for (const [table, columns] of tables) {
    const size = sizes.rows.find((r) => r.name === table);
    const pages = Number(size?.pages ?? 0);
    estimatedRows += Number(size?.estimate ?? 0);
    if (pages <= chunkPages) {
      chunks.push({ table, columns, where: '' });
      continue;
    }
    for (let from = 0; from < pages; from += chunkPages) {
      // The last slice is open-ended: the table may have grown since its size was read.
      const upper = from + chunkPages >= pages ? '' : ` AND ctid < '(${from + chunkPages},0)'::tid`;
      chunks.push({ table, columns, where: `WHERE ctid >= '(${from},0)'::tid${upper}` });
    }
  }
  return { chunks, estimatedRows };
}

/** A bounded hand-over between producers and one consumer, with backpressure. */
class Channel<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private error: Error | undefined;
  private wakeConsumer?: () => void;
  private wakeProducers: (() => void)[] = [];

  constructor(private readonly capacity: number) {}

  async put(item: T): Promise<void> {
    while (this.items.length >= this.capacity && this.error === undefined) {
      await new Promise<void>((resolve) => this.wakeProducers.push(resolve));
    }
    if (this.error !== undefined) throw this.error;
    this.items.push(item);
    this.wakeConsumer?.();
  }

  close(): void {
    this.closed = true;
    this.wakeConsumer?.();
  }

  /** The consumer failed: the producer's next put throws, so both stop. */
  fail(reason: unknown): never {
    const error = reason instanceof Error ? reason : new Error(String(reason));
    this.error = error;
    this.wakeProducers.splice(0).forEach((wake) => wake());
    throw error;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        this.wakeProducers.splice(0).forEach((wake) => wake());
        yield item;
      } else if (this.closed) {
        return;
      } else {
        await new Promise<void>((resolve) => (this.wakeConsumer = resolve));
      }
    }
  }
}

/**
 * The copied tables and their copied columns, read from the read model's own schema
 * (sql/duckdb/tables.sql); the tables and columns of the `derived` parts are left out.
 */
export async function readModelTables(
  duck: DuckDBConnection,
  derived: readonly DerivedTables[],
): Promise<Map<string, ColumnInfo[]>> {
  const local = new Set([...LOCAL_TABLES, ...derived.flatMap((part) => part.tables)]);
  const isDerivedColumn = (table: string, column: string) =>
    derived.some((part) => part.derivedColumns?.get(table)?.includes(column));
  const reader = await duck.runAndReadAll(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'main' AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')
     ORDER BY table_name, ordinal_position`,
  );
  const tables = new Map<string, ColumnInfo[]>();
  for (const [table, name, type] of reader.getRows() as [string, string, string][]) {
    if (local.has(table) || isDerivedColumn(table, name)) continue;
    tables.set(table, [...(tables.get(table) ?? []), { name, type }]);
  }
  return tables;
}

/** How PostgreSQL writes a column so that DuckDB's CSV reader reads it back exactly. */
export function pgExpression(column: ColumnInfo): string {
  if (column.type.endsWith('[]')) return `array_to_json(${column.name})::text`;
  if (column.type === 'JSON') return `${column.name}::text`;
  return column.name;
}
