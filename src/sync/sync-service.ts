import { tmpdir } from 'node:os';
import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import type { DerivedTables } from '../readmodel/derived-tables.ts';
import type { ReadModel } from '../readmodel/read-model.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import { ChangeLogSource } from './change-log-source.ts';
import type { ChangeSource, SourceEvents, SyncRun } from './change-source.ts';
import { readModelTables, removeStaleLoads, type SyncProgress } from './full-sync.ts';
import { formatLsn, parseLsn, ZERO_LSN, type Lsn } from './lsn.ts';
import { PollWaiters, PositionWaiters, within } from './position-waiters.ts';
import { ReplicationSource } from './replication-source.ts';
import { replicationUnavailable } from './replication/slot.ts';
import { storeLsn } from './store-position.ts';
import { newSyncMetrics, noteFailure, type SyncMetrics } from './sync-metrics.ts';

export type { SyncFailure, SyncMetrics } from './sync-metrics.ts';

export interface SyncServiceOptions {
  pool: pg.Pool;
  /** Connection string of the store, for the replication connection. */
  url: string;
  readModel: ReadModel;
  status: ReadModelStatus;
  /**
   * The derived parts of the read model (search index, summaries, export journal), kept in
   * step with every batch in this order; the composition root registers them
   * (src/cli/derived-tables.ts).
   */
  derived: readonly DerivedTables[];
  log?: (line: string) => void;
  onProgress?: (progress: SyncProgress) => void;
  /** The node's name, which its replication slots carry (NODE_NAME, docs/scale-out.md). */
  nodeName?: string;
  /**
   * The publication followed (PUBLICATION; default ledgerline_read_model, every row): one
   * filtered to some workspaces makes a node of a shard (docs/scale-out.md, "Sharding").
   */
  publication?: string;
  /** Changes held in memory before they are written into the open DuckDB transaction… */
  flushRows?: number;
  /** …or bytes of their lines (default 64 MiB), whichever comes first. */
  flushBytes?: number;
  /** Commit to DuckDB at least this often while changes stream in (ms). */
  commitIntervalMs?: number;
  /** How long `waitForStore` waits for the read model before giving up (ms; default 10 s). */
  writeWaitMs?: number;
  /** Pause before the first retry after a failure (ms; default 1 s), doubled per failure… */
  retryMs?: number;
  /** …up to this (ms; default 30 s). */
  retryMaxMs?: number;
}

/** Bytes of change lines held in memory before a flush (SyncServiceOptions.flushBytes). */
const DEFAULT_FLUSH_BYTES = 64 * 1024 * 1024;

/**
 * Keeps the DuckDB read model equal to PostgreSQL (docs/sync.md). It composes the parts: a
 * change source brings the changes (replication-source.ts, or change-log-source.ts when the
 * store cannot replicate), a BatchWriter commits them to DuckDB with the read model's
 * position, and position waiters release whoever waits for a position. What it keeps itself
 * is the retry policy: any failure abandons the run (source, uncommitted changes, DuckDB
 * connection) and starts a new one from the committed position after a growing pause.
 */
export class SyncService {
  readonly metrics: SyncMetrics = newSyncMetrics();

  // The current run; none while a retry waits.
  private source: ChangeSource | undefined;
  private duck: DuckDBConnection | undefined;
  private closing: Promise<void> | undefined;
  // What outlives a run: the position reached, and who waits for one.
  private reached: Lsn | undefined;
  private readonly lsnWaiters = new PositionWaiters();
  private readonly pollWaiters = new PollWaiters();
  private stopped = false;
  private recovering = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** A catch-up (the CLI's `sync`) ends at the first failure instead of retrying. */
  private onFailure: ((error: unknown) => void) | undefined;
  private readonly events: SourceEvents = {
    advanced: (position) => this.advanced(position),
    applied: (rows) => {
      this.metrics.rowsApplied += rows;
      this.metrics.batchesApplied++;
      this.metrics.lastCommitAt = new Date();
    },
    loaded: () => void this.metrics.fullLoads++,
    recovered: () => this.recovered(),
    failed: (error) => this.fail(error),
  };

  constructor(private readonly options: SyncServiceOptions) {}

  /**
   * The read model's position as LSN text: every change committed at or before it is visible
   * in the read model. Replication: the end of the last commit applied, or a keepalive's
   * position reached with nothing half-applied. Change log: the store's WAL insert position
   * read before the last successful poll (or first load) took its snapshot. Undefined until
   * this service has loaded or reached one.
   */
  get position(): string | undefined {
    return this.reached === undefined ? undefined : formatLsn(this.reached);
  }

  /** The store's position now, as LSN text: what a write reads right after its commit. */
  async storePosition(): Promise<string> {
    return formatLsn(await storeLsn(this.options.pool));
  }

  /** Loads the read model when it has no usable position, then follows the store until stopped. */
  async start(): Promise<void> {
    const source = await this.open();
    if (!source) return;
    await source.follow(this.metrics.failure !== null);
    // Waiters from before this run (a write during the retry's pause) need the stream moving.
    if (this.lsnWaiters.size > 0) source.hurry();
  }

  /**
   * Brings the read model up to the store's position at the time of the call, then stops.
   * A failure ends it (rejects) instead of being retried.
   */
  async catchUp(): Promise<void> {
    const failed = new Promise<never>((_resolve, reject) => (this.onFailure = reject));
    failed.catch(() => undefined);
    try {
      const source = await this.open();
      if (source) await Promise.race([source.catchUp(), failed]);
    } finally {
      this.onFailure = undefined;
      await this.stop();
    }
  }

  /**
   * Waits until every change committed so far (also by the caller) is visible in the read
   * model: true then, false when `timeoutMs` (default `writeWaitMs`, 10 s) ran out first
   * (a catch-up, the tests and the benchmarks wait this way; a read waits for its data
   * position through `waitFor`).
   */
  async waitForStore(timeoutMs = this.options.writeWaitMs ?? 10_000): Promise<boolean> {
    return this.waitFor(await this.storePosition(), timeoutMs);
  }

  /**
   * Waits until every change committed at or before `lsnText` (a position the caller read
   * from the store after the commits it needs, such as `storePosition()`) is visible in the
   * read model: true then, false when `timeoutMs` ran out first. Replication: once `position`
   * is at or past it. Change log: at once when `position` is strictly past it, or else once
   * a poll that started after this call has succeeded (docs/sync.md, "Positions"); there
   * `0/0` names no position, and waits for such a poll: for every change committed before
   * the call.
   */
  async waitFor(lsnText: string, timeoutMs = Infinity): Promise<boolean> {
    const lsn = parseLsn(lsnText);
    if (this.metrics.mode === 'change-log') {
      if (lsn > ZERO_LSN && this.reached !== undefined && this.reached > lsn) return true;
      const wait = this.pollWaiters.wait();
      this.source?.hurry();
      return within(wait, timeoutMs);
    }
    if ((this.reached ?? ZERO_LSN) >= lsn) return true;
    const wait = this.lsnWaiters.wait(lsn);
    this.source?.hurry();
    return within(wait, timeoutMs);
  }

  /**
   * Stops following for good: the change being applied finishes, what is not committed is
   * rolled back, and the DuckDB connection closes.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.close();
  }

  /**
   * Starts a run: a DuckDB connection of its own, and the change source the store allows,
   * which first loads the read model whole when it has no position to follow from. Undefined
   * when the service was stopped meanwhile.
   */
  private async open(): Promise<ChangeSource | undefined> {
    const { options } = this;
    // Spilled batches of a process that was killed while retrying.
    await removeStaleLoads(tmpdir());
    const duck = await options.readModel.connect();
    let source: ChangeSource;
    try {
      const run: SyncRun = {
        pool: options.pool,
        url: options.url,
        readModel: options.readModel,
        status: options.status,
        derived: options.derived,
        duck,
        tables: await readModelTables(duck, options.derived),
        log: (line) => options.log?.(line),
        costs: this.metrics.batchCosts,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
        ...(options.publication === undefined ? {} : { publication: options.publication }),
      };
      const reason = await replicationUnavailable(options.pool);
      if (reason === undefined) {
        this.metrics.mode = 'replication';
        const replication = await ReplicationSource.open(run, this.events, this.lsnWaiters, {
          flushRows: options.flushRows ?? 50_000,
          flushBytes: options.flushBytes ?? DEFAULT_FLUSH_BYTES,
          commitIntervalMs: options.commitIntervalMs ?? 200,
        });
        this.metrics.slotName = replication.slotName;
        source = replication;
      } else {
        options.log?.(
          `sync: logical replication is not available (${reason}); following the change log instead`,
        );
        this.metrics.mode = 'change-log';
        source = await ChangeLogSource.open(run, this.events, this.pollWaiters, {
          flushBytes: options.flushBytes ?? DEFAULT_FLUSH_BYTES,
        });
      }
    } catch (error) {
      duck.closeSync();
      throw error;
    }
    this.duck = duck;
    this.source = source;
    if (!this.stopped) return source;
    await this.close();
    return undefined;
  }

  /** Ends the run: its source stops (rolling back what is uncommitted), then its connection closes. */
  private close(): Promise<void> {
    this.closing ??= (async () => {
      const source = this.source;
      this.source = undefined;
      await source?.stop();
      this.duck?.closeSync();
      this.duck = undefined;
    })().finally(() => (this.closing = undefined));
    return this.closing;
  }

  private advanced(position: Lsn): void {
    if (this.reached !== undefined && position <= this.reached) return;
    this.reached = position;
    if (this.metrics.mode === 'replication') this.metrics.appliedLsn = formatLsn(position);
    // A change-log position covers only what lies strictly before it (docs/sync.md).
    this.lsnWaiters.reach(this.metrics.mode === 'change-log' ? position - 1n : position);
  }

  /** The sync got past its failure: it follows the store again. */
  private recovered(): void {
    const failure = this.metrics.failure;
    if (!failure) return;
    this.options.log?.(
      `sync: following the store again after ${failure.attempts} failed attempt${failure.attempts === 1 ? '' : 's'}`,
    );
    this.metrics.failure = null;
  }

  /**
   * Any failure (connection lost, slot dropped, a change the read model cannot hold) abandons
   * the run and starts a new one from the committed position after a pause that doubles with
   * each failure in a row (retryMs up to retryMaxMs); a lost slot makes the new run rebuild
   * the read model. Until a run gets past it, the failure is reported (/healthz 503,
   * /metrics), and reads that wait for a write's position give up after their bound.
   */
  private fail(error: unknown): void {
    if (this.stopped || this.recovering) return;
    noteFailure(this.metrics, error);
    if (this.onFailure) {
      this.onFailure(error);
      return;
    }
    const attempts = this.metrics.failure!.attempts;
    const delay = Math.min(
      (this.options.retryMs ?? 1000) * 2 ** (attempts - 1),
      this.options.retryMaxMs ?? 30_000,
    );
    this.options.log?.(
      `sync: ${this.metrics.lastError}; retrying from ${this.position ?? formatLsn(ZERO_LSN)} in ${delay / 1000} s`,
    );
    this.recovering = true;
    void (async () => {
      await this.close();
      if (this.stopped) return;
      await new Promise((resolve) => (this.retryTimer = setTimeout(resolve, delay)));
      this.recovering = false;
      if (this.stopped) return;
      await this.start().catch((e: unknown) => this.fail(e));
    })();
  }
}
