import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import Cursor from 'pg-cursor';
import { readSyncState, type SyncState } from '../readmodel/sync-state.ts';
import type { BatchWriter } from './batch-writer.ts';
import type { ChangeBatch, SourceRow } from './change-batch.ts';
import { keyColumns, type ColumnInfo } from './copied-columns.ts';
import { faultPoint } from './fault-points.ts';
import type { Lsn } from './lsn.ts';
import { storeLsn } from './store-position.ts';

const KEYS_PER_QUERY = 20_000;
/** Rows read from a cursor at a time. */
const ROWS_PER_READ = 1_000;

export interface PollResult {
  changedKeys: number;
  /**
   * The store's WAL insert position read before the poll took its snapshot: the read model's
   * position once the poll has committed (docs/sync.md, "Positions").
   */
  position: Lsn;
}

/**
 * Follows the store through the trigger-fed change log (sql/postgres/0003) when logical
 * replication is not available. Each poll opens a REPEATABLE READ transaction with snapshot
 * S, reads the keys logged by transactions visible in S but not in the previous snapshot P
 * (pg_visible_in_snapshot: a transaction that commits late is simply not visible in P and
 * is picked up by the first S that sees it), reads those keys' rows under S (a key with no
 * row was deleted), and applies them to DuckDB together with S in one transaction.
 */
export class ChangeLogFollower {
  constructor(
    private readonly pool: pg.Pool,
    private readonly duck: DuckDBConnection,
    private readonly tables: Map<string, ColumnInfo[]>,
    private readonly writer: BatchWriter,
    /** Bytes of change lines in memory past which they are written into the open transaction. */
    private readonly flushBytes: number,
  ) {}

  /**
   * Switches logging on, and waits until every transaction that was running at that moment
   * has ended: statements those ran before the switch were not logged, so the first load
   * must be taken after them to see their rows.
   */
  static async enableLogging(pool: pg.Pool): Promise<void> {
    const result = await pool.query<{ was: boolean; snapshot: string }>(
      `WITH previous AS (SELECT enabled FROM sync_change_log_state)
       UPDATE sync_change_log_state SET enabled = true
       RETURNING (SELECT enabled FROM previous) AS was, pg_current_snapshot()::text AS snapshot`,
    );
    if (result.rows[0]!.was) return;
    for (;;) {
      const running = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_snapshot_xip($1::pg_snapshot) AS x(id)
         WHERE pg_xact_status(x.id) = 'in progress'`,
        [result.rows[0]!.snapshot],
      );
      if (running.rows[0]!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** One poll: applies everything committed since the last one. */
  async poll(): Promise<PollResult> {
    const state = await readSyncState(this.duck);
    if (!state?.sourceSnapshot)
      throw new Error('The read model has no change-log position; it needs a first load');
    let read: PollResult & { next: SyncState };
    try {
      read = await this.readChanges(state);
      await this.writer.commit(read.next);
    } catch (error) {
      // Nothing of this poll stays: the next one reads again from the committed snapshot.
      await this.writer.rollback();
      throw error;
    }
    faultPoint('batch:before-ack');
    // Every transaction older than the snapshot's xmin is visible in it, so applied: its log
    // rows are no longer needed. Done after the DuckDB commit; a crash before only repeats work.
    await this.pool.query(
      'DELETE FROM sync_change_log WHERE txid < pg_snapshot_xmin($1::pg_snapshot)',
      [read.next.sourceSnapshot],
    );
    return { changedKeys: read.changedKeys, position: read.position };
  }

  /**
   * Under a new snapshot, reads the current rows of the keys changed since `state`'s snapshot
   * into the writer's batch; `next` is the state that the commit of those rows writes.
   */
  private async readChanges(state: SyncState): Promise<PollResult & { next: SyncState }> {
    const client = await this.pool.connect();
    try {
      // Before the snapshot, never inside it: see PollResult.position.
      const position = await storeLsn(client);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // Values as text in the forms DuckDB reads back exactly, whatever the server's defaults.
      await client.query("SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'");
      const taken = await client.query<{ snapshot: string; as_of: Date }>(
        'SELECT pg_current_snapshot()::text AS snapshot, now() AS as_of',
      );
      const { snapshot, as_of: asOf } = taken.rows[0]!;
      const keys = await client.query<{ table_name: string; keys: Record<string, string>[] }>(
        `SELECT table_name, jsonb_agg(DISTINCT key) AS keys FROM sync_change_log
         WHERE txid >= pg_snapshot_xmin($1::pg_snapshot)
           AND pg_visible_in_snapshot(txid, $2::pg_snapshot)
           AND NOT pg_visible_in_snapshot(txid, $1::pg_snapshot)
         GROUP BY table_name`,
        [state.sourceSnapshot, snapshot],
      );
      let changedKeys = 0;
      for (const { table_name: table, keys: touched } of keys.rows) {
        changedKeys += touched.length;
        for (let i = 0; i < touched.length; i += KEYS_PER_QUERY) {
          const slice = touched.slice(i, i + KEYS_PER_QUERY);
          await this.readRows(client, table, slice, this.writer.batch);
        }
      }
      await client.query('COMMIT');
      return {
        position,
        changedKeys,
        next: { ...state, sourceSnapshot: snapshot, dataAsOf: asOf },
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * The current rows of `keys` (PostgreSQL text, as replication sends them); a key without a
   * row was deleted. Read through a cursor, ROWS_PER_READ at a time, and written into the
   * open DuckDB transaction whenever the lines in memory pass `flushBytes`: a poll of many
   * keys with the longest values the store holds stays within memory.
   */
  private async readRows(
    client: pg.PoolClient,
    table: string,
    keys: Record<string, string>[],
    buffer: ChangeBatch,
  ): Promise<void> {
    const columns = this.tables.get(table);
    if (!columns) throw new Error(`The read model has no table ${table}`);
    const keyNames = keyColumns(table);
    const pgType = (name: string) =>
      columns.find((c) => c.name === name)?.type === 'UUID' ? 'uuid' : 'text';
    const match = keyNames.map((k) => `t.${k} = (x->>'${k}')::${pgType(k)}`).join(' AND ');
    const select = columns.map((c) => `t.${c.name}::text AS "${c.name}"`).join(', ');
    const keyOf = (row: Record<string, string | null | undefined>) =>
      keyNames.map((k) => row[k] ?? '').join('\u0000');
    const changes = buffer.table(table);
    const cursor = client.query(
      new Cursor<SourceRow>(
        `SELECT ${select} FROM jsonb_array_elements($1::jsonb) AS x JOIN ${table} t ON ${match}`,
        [JSON.stringify(keys)],
      ),
    );
    const present = new Set<string>();
    try {
      for (;;) {
        const rows = await cursor.read(ROWS_PER_READ);
        for (const row of rows) {
          present.add(keyOf(row));
          changes.upsertRow(row);
        }
        if (buffer.memoryBytes >= this.flushBytes) await this.writer.flush();
        if (rows.length < ROWS_PER_READ) break;
      }
    } finally {
      await cursor.close();
    }
    for (const key of keys) if (!present.has(keyOf(key))) changes.deleteKey(key);
  }
}
