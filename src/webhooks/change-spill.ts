import type pg from 'pg';
import Cursor from 'pg-cursor';
import type { Row, RowChange } from './change-reader.ts';
import { rowKey } from './events.ts';

/**
 * The changes of one large transaction, kept in a temporary table of the store instead of the
 * producer's memory (docs/webhooks.md, "Large transactions"): an import of millions of rows
 * is one transaction, and its events are made per record, which needs all of a record's
 * changes. The table lives on one connection of its own and goes with it, so a crash leaves
 * nothing behind: the stream sends the transaction again.
 *
 * `groups` reads the changes back ordered by row: a row's changes in stream order, and
 * rows in `rank` order of their tables (the tables of records before the tables only of their parts, so a
 * record's own event is written before a part's `updated` of it, which then adds nothing).
 */
export class ChangeSpill {
  private client: pg.PoolClient | undefined;
  private seq = 0;
  private rows = 0;

  constructor(
    private readonly pool: pg.Pool,
    /** The order of a table's changes when read back; tables not named come last. */
    private readonly rank: ReadonlyMap<string, number>,
  ) {}

  get size(): number {
    return this.rows;
  }

  async add(changes: readonly RowChange[]): Promise<void> {
    if (changes.length === 0) return;
    try {
      if (this.client === undefined) {
        this.client = await this.pool.connect();
        await this.client.query(
          `CREATE TEMP TABLE IF NOT EXISTS webhook_spill (
             seq bigint, rank integer, tbl text, record_id text, change text)`,
        );
        await this.client.query('TRUNCATE webhook_spill');
      }
      const columns: [number[], number[], string[], string[], string[]] = [[], [], [], [], []];
      for (const change of changes) {
        columns[0].push(this.seq++);
        columns[1].push(this.rank.get(change.table) ?? this.rank.size);
        columns[2].push(change.table);
        columns[3].push(rowKey(change));
        columns[4].push(encodeChange(change));
      }
      await this.client.query(
        `INSERT INTO webhook_spill
         SELECT * FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::text[], $5::text[])`,
        columns,
      );
      this.rows += changes.length;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** The changes in runs of whole records, about `batch` changes a run. */
  async *groups(batch = 2000): AsyncGenerator<RowChange[]> {
    if (this.client === undefined) return;
    const cursor = this.client.query(
      new Cursor<{ tbl: string; record_id: string; change: string }>(
        'SELECT tbl, record_id, change FROM webhook_spill ORDER BY rank, tbl, record_id, seq',
      ),
    );
    try {
      let run: RowChange[] = [];
      let last = '';
      for (;;) {
        const rows = await cursor.read(batch);
        if (rows.length === 0) break;
        for (const row of rows) {
          const key = `${row.tbl}/${row.record_id}`;
          // A run ends between records, never inside one.
          if (run.length >= batch && key !== last) {
            yield run;
            run = [];
          }
          run.push(decodeChange(row.change));
          last = key;
        }
      }
      if (run.length > 0) yield run;
    } finally {
      await cursor.close();
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    await client.query('DROP TABLE IF EXISTS webhook_spill').catch(() => undefined);
    client.release();
  }
}

/** A tag no JSON value of a row holds: JSON has no way to say "a Date". */
const DATE = '\u0000date';

/** A change as text that `decodeChange` reads back with its Dates. */
export function encodeChange(change: RowChange): string {
  return JSON.stringify(change, function (this: Row, key: string, value: unknown) {
    const raw = this[key];
    return raw instanceof Date ? { [DATE]: raw.getTime() } : value;
  });
}

export function decodeChange(text: string): RowChange {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && DATE in value)
      return new Date((value as Record<string, number>)[DATE]!);
    return value;
  }) as RowChange;
}
