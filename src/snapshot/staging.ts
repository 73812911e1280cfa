import { once } from 'node:events';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { BinaryCopyRows } from './copy-binary.ts';

/** Bytes of rows gathered per table before they are sent as one COPY (tests send less). */
const CHUNK_BYTES = 4 << 20;

/**
 * When a table's rows go past staging, straight into the real table: once a table has brought
 * `fromRows` rows, `switchTo` is asked, with the rows so far, to make it take the rest. It
 * answers true, or the rows past which to ask again (Infinity: never).
 */
export interface StraightPolicy {
  readonly fromRows: number;
  switchTo(table: string, rows: number): Promise<true | number>;
}

/**
 * Temporary staging tables `stage_<table>`, shaped like the real ones but without keys,
 * references or checks, filled by binary COPY while a snapshot is still being read.
 *
 * Records of all tables arrive interleaved and a connection runs one COPY at a time, so
 * each table gathers its rows in a buffer, and a full buffer goes out as one COPY of its
 * own. Only one COPY is in flight: while PostgreSQL takes it in, the reader parses and
 * checks the next records (the two use a core each), and a full buffer waits until it is
 * done (ready()). Memory stays at a few buffers whatever the file's size.
 */
export class Staging {
  private readonly buffers = new Map<string, BinaryCopyRows>();
  private readonly counts = new Map<string, number>();
  /** Tables whose rows go straight into the real table (StraightPolicy). */
  private readonly straight = new Set<string>();
  /** By table the policy declined: the rows past which to ask it again. */
  private readonly askAbove = new Map<string, number>();
  private inFlight: Promise<void> = Promise.resolve();
  private copying = false;
  /** Time spent waiting for PostgreSQL to take in a COPY: reading outran loading. */
  waitedMs = 0;

  private constructor(
    private readonly client: pg.PoolClient,
    private readonly columns: ReadonlyMap<string, readonly string[]>,
    private readonly chunkBytes: number,
    private readonly policy: StraightPolicy | undefined,
  ) {}

  /** Creates the staging tables in the client's transaction; they are dropped at its end. */
  static async create(
    client: pg.PoolClient,
    columns: ReadonlyMap<string, readonly string[]>,
    options: { chunkBytes?: number; straight?: StraightPolicy } = {},
  ): Promise<Staging> {
    for (const table of columns.keys()) {
      await client.query(
        `CREATE TEMP TABLE stage_${table} (LIKE ${table} INCLUDING DEFAULTS) ON COMMIT DROP`,
      );
    }
    return new Staging(client, columns, options.chunkBytes ?? CHUNK_BYTES, options.straight);
  }

  /** The buffer to write one row of `table` into (BinaryCopyRows.beginRow first). */
  rowsOf(table: string): BinaryCopyRows {
    let rows = this.buffers.get(table);
    if (!rows) {
      rows = new BinaryCopyRows();
      this.buffers.set(table, rows);
    }
    return rows;
  }

  /** True once some table's buffer is ready to go: time to `await send()`. */
  get full(): boolean {
    for (const rows of this.buffers.values()) if (this.ready(rows)) return true;
    return false;
  }

  /** Sends every buffer ready to go (`all`: every buffer with rows), each as one COPY. */
  async send(all = false): Promise<void> {
    for (const [table, rows] of this.buffers) {
      if (rows.rows === 0 || (!all && !this.ready(rows))) continue;
      const count = (this.counts.get(table) ?? 0) + rows.rows;
      this.counts.set(table, count);
      const chunk = rows.take();
      const started = performance.now();
      await this.inFlight;
      this.waitedMs += performance.now() - started;
      if (
        this.policy &&
        !this.straight.has(table) &&
        count >= this.policy.fromRows &&
        count > (this.askAbove.get(table) ?? -1)
      ) {
        // Nothing in flight: the connection is free for the switch's statements.
        const answer = await this.policy.switchTo(table, count);
        if (answer === true) this.straight.add(table);
        else this.askAbove.set(table, answer);
      }
      this.copying = true;
      this.inFlight = this.copy(table, chunk)
        .then(() => rows.recycle(chunk))
        .finally(() => (this.copying = false));
      // Its failure surfaces at the next await of it; until then it is not unhandled.
      this.inFlight.catch(() => undefined);
    }
    if (all) await this.inFlight;
  }

  /**
   * A full buffer goes when no COPY is in flight. While one is, the reader goes on filling
   * the buffers rather than wait for it (two tables filling up together had the second wait
   * a whole COPY), up to twice the size, which then waits: memory stays bounded.
   */
  private ready(rows: BinaryCopyRows): boolean {
    return rows.bytes >= (this.copying ? 2 * this.chunkBytes : this.chunkBytes);
  }

  /** Whether `table`'s rows went straight into the real table (StraightPolicy). */
  isStraight(table: string): boolean {
    return this.straight.has(table);
  }

  /** Tables whose rows went straight into the real table. */
  get straightTables(): string[] {
    return [...this.straight];
  }

  /** Rows sent to `stage_<table>` (or straight into `table`) so far. */
  rows(table: string): number {
    return this.counts.get(table) ?? 0;
  }

  private async copy(table: string, chunk: Buffer): Promise<void> {
    const columns = this.columns.get(table)!;
    const sink = this.client.query(
      copyFrom(
        `COPY ${this.straight.has(table) ? table : `stage_${table}`} (${columns.join(', ')}) FROM STDIN (FORMAT binary)`,
      ),
    );
    const done = once(sink, 'finish');
    sink.end(chunk);
    await done;
  }
}
