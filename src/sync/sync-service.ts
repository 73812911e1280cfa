import { tmpdir } from 'node:os';
import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { LogicalReplicationService } from 'pg-logical-replication';
import type { DerivedTables } from '../readmodel/derived-tables.ts';
import type { ReadModel } from '../readmodel/read-model.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import { ApplyError, firstLine } from './apply-error.ts';
import { ChangeBatch } from './change-batch.ts';
import { ChangeLogFollower } from './change-log-follower.ts';
import { faultPoint } from './fault-points.ts';
import { Queue } from './queue.ts';
import { sourceIdentity } from './source-identity.ts';
import type { ColumnInfo } from './copied-columns.ts';
import { fullSync, readModelTables, removeStaleLoads, type SyncProgress } from './full-sync.ts';
import { formatLsn, parseLsn, ZERO_LSN, type Lsn } from './lsn.ts';
import { PgoutputDecoder } from './replication/pgoutput-decoder.ts';
import { RawPgoutputPlugin } from './replication/raw-pgoutput-plugin.ts';
import {
  createSlotWithSnapshot,
  dropSlot,
  newSlotName,
  PUBLICATION,
  replicationUnavailable,
  slotExists,
} from './replication/slot.ts';
import { readSyncState, writeSyncState, type SyncState } from '../readmodel/sync-state.ts';

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
  /** Changes held in memory before they are written into the open DuckDB transaction. */
  flushRows?: number;
  /** Commit to DuckDB at least this often while changes stream in (ms). */
  commitIntervalMs?: number;
  /** How long `waitForStore` waits for the read model before giving up (ms; default 10 s). */
  writeWaitMs?: number;
  /** Pause before the first retry after a failure (ms; default 1 s), doubled per failure… */
  retryMs?: number;
  /** …up to this (ms; default 30 s). */
  retryMaxMs?: number;
}

/** Why the read model stopped following the store, until a retry gets past it. */
export interface SyncFailure {
  /** The error's first line (the rest of a DuckDB message may quote row text). */
  error: string;
  /** The table whose changes could not be applied, when that was the failure. */
  table: string | null;
  /** Primary key of the row holding a value the read model cannot hold, when one was found. */
  key: Record<string, string> | null;
  column: string | null;
  /** When the first of these failures happened. */
  since: Date;
  /** Failed attempts so far; the next waits min(retryMs × 2^(attempts−1), retryMaxMs). */
  attempts: number;
}

/** What /metrics and /healthz report. */
export interface SyncMetrics {
  mode: 'replication' | 'change-log' | 'starting';
  appliedLsn: string;
  rowsApplied: number;
  batchesApplied: number;
  fullLoads: number;
  lastError: string | null;
  lastErrorAt: Date | null;
  lastCommitAt: Date | null;
  /** The replication slot followed (replication mode). */
  slotName: string | null;
  /** Attempts to write changes into the read model that failed (every retry counts). */
  applyFailures: number;
  /** Set while the sync is failing: from a failure until a retry has caught up. */
  failure: SyncFailure | null;
}

/** A pgoutput message (undecoded), or a keepalive of the server. */
type Inbound = Buffer | { kind: 'keepalive'; lsn: Lsn; reply: boolean };

// Stop reading from PostgreSQL past this many queued messages, go on below the second.
const QUEUE_HIGH = 100_000;
const QUEUE_LOW = 20_000;
// How often the change-log mode looks for new commits.
const CHANGE_LOG_POLL_MS = 200;

/**
 * Keeps the DuckDB read model equal to PostgreSQL by logical replication.
 *
 * - First load: a slot is created with an exported snapshot and every table is copied under
 *   that snapshot, so the copy and the stream meet at the slot's consistent point.
 * - Streaming: changes of committed transactions are folded per key and written into an
 *   open DuckDB transaction; the DuckDB commit carries the LSN of the last PostgreSQL commit
 *   it covers (sync_state), and only after it is PostgreSQL told that position. A crash at
 *   any point leaves DuckDB at a committed position from which the slot replays the rest.
 * - Readers never wait: DuckDB gives each reader the last committed state.
 */
export class SyncService {
  readonly metrics: SyncMetrics = {
    mode: 'starting',
    appliedLsn: formatLsn(ZERO_LSN),
    rowsApplied: 0,
    batchesApplied: 0,
    fullLoads: 0,
    lastError: null,
    lastErrorAt: null,
    lastCommitAt: null,
    slotName: null,
    applyFailures: 0,
    failure: null,
  };

  private duck?: DuckDBConnection;
  private tables = new Map<string, ColumnInfo[]>();
  private state?: SyncState;
  private replication?: LogicalReplicationService;
  private readonly queue = new Queue<Inbound>();
  private paused = false;
  private working = false;
  /** The queue's worker while it runs; it never rejects (errors go to fail()). */
  private draining: Promise<void> = Promise.resolve();
  private inTransaction = false;
  private stopped = false;
  private recovering = false;
  private follower?: ChangeLogFollower;
  private polling: Promise<void> = Promise.resolve();
  private pollTimer?: NodeJS.Timeout;
  private lastReport = { at: 0, rows: 0 };
  private keepaliveTimer?: NodeJS.Timeout;
  private applied: Lsn = ZERO_LSN;
  private waiters: { lsn: Lsn; resolve: () => void }[] = [];
  /** Change-log mode: released by the first successful poll numbered above `after`. */
  private pollWaiters: { after: number; resolve: () => void }[] = [];
  private pollsStarted = 0;
  /** Change-log mode: the position of the last successful poll (PollResult.position). */
  private polledTo: Lsn | undefined;
  private streamEnded?: Promise<void>;
  /**
   * After a failure, the store's WAL position when the retry began. Until the stream reaches
   * it, changes are folded into one DuckDB transaction (spilled to disk past `flushRows`), so
   * that a row corrected after the change that failed is written corrected (docs/sync.md).
   */
  private recoverTo: Lsn | undefined;
  private retryTimer?: NodeJS.Timeout;
  /** A catch-up (the CLI's `sync`) ends at the first failure instead of retrying. */
  private onFailure: ((error: unknown) => void) | undefined;

  // The DuckDB transaction being filled: changes of complete PostgreSQL transactions.
  private batch = new ChangeBatch(new Map(), []);
  private decoder?: PgoutputDecoder;
  private duckOpen = false;
  private pending: { endLsn: Lsn; commitTime: Date; rows: number } | undefined;
  private firstPendingAt = 0;

  constructor(private readonly options: SyncServiceOptions) {}

  /** Loads the read model when it has no usable position, then streams until stopped. */
  async start(): Promise<void> {
    await this.prepare();
    if (this.metrics.mode === 'replication') {
      if (this.metrics.failure) await this.foldUpToStore();
      await this.stream();
    } else {
      this.schedulePoll();
    }
  }

  /**
   * Brings the read model up to the store's position at the time of the call, then stops.
   * A failure ends it (rejects) instead of being retried.
   */
  async catchUp(): Promise<void> {
    const failed = new Promise<never>((_resolve, reject) => (this.onFailure = reject));
    failed.catch(() => undefined);
    try {
      await this.prepare();
      if (this.metrics.mode === 'change-log') {
        await this.pollChangeLog();
        return;
      }
      const target = await this.currentWalLsn();
      await Promise.race([this.stream(), failed]);
      await Promise.race([this.waitFor(formatLsn(target)), failed]);
    } finally {
      this.onFailure = undefined;
      await this.stop();
    }
  }

  /**
   * Waits until every change committed so far (also by the caller) is visible in the read
   * model: true then, false when `timeoutMs` (default `writeWaitMs`, 10 s) ran out first.
   * A write calls it after its commit, and answers 503 on false rather than hang while the
   * sync is failing (docs/sync.md).
   */
  async waitForStore(timeoutMs = this.options.writeWaitMs ?? 10_000): Promise<boolean> {
    return this.waitFor(formatLsn(await this.currentWalLsn()), timeoutMs);
  }

  /**
   * Waits until every change committed at or before `lsn` is visible in the read model (in
   * change-log mode: every change committed before the call); false when `timeoutMs` ran out.
   */
  async waitFor(lsnText: string, timeoutMs = Infinity): Promise<boolean> {
    const lsn = parseLsn(lsnText);
    if (this.metrics.mode === 'change-log') {
      // A poll that starts after this moment takes a snapshot that sees every commit made
      // before; one that fails (or none, while the sync restarts) releases nobody.
      const waiter = { after: this.pollsStarted, resolve: (): void => undefined };
      const reached = new Promise<void>((resolve) => (waiter.resolve = resolve));
      this.pollWaiters.push(waiter);
      this.pollChangeLog().catch(() => undefined);
      return this.within(reached, timeoutMs, () => {
        this.pollWaiters = this.pollWaiters.filter((w) => w !== waiter);
      });
    }
    if (this.applied >= lsn) return true;
    const waiter = { lsn, resolve: (): void => undefined };
    const reached = new Promise<void>((resolve) => (waiter.resolve = resolve));
    this.waiters.push(waiter);
    this.keepKeepalivesComing();
    return this.within(reached, timeoutMs, () => {
      this.waiters = this.waiters.filter((w) => w !== waiter);
    });
  }

  /**
   * The read model's position: every change committed at or before it is visible. Replication:
   * the applied commit (or keepalive) position. Change log: the position the last successful
   * poll read before its snapshot: a commit ending strictly before it is in the read model
   * (docs/sync.md, "Positions in change-log mode"); `waitFor` of any position not strictly
   * before it waits for the next poll. Undefined before the first load.
   */
  get position(): string | undefined {
    if (this.metrics.mode === 'change-log')
      return this.polledTo === undefined ? undefined : formatLsn(this.polledTo);
    return this.state?.sourceLsn == null ? undefined : formatLsn(this.applied);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.keepaliveTimer);
    clearTimeout(this.pollTimer);
    clearTimeout(this.retryTimer);
    await this.polling.catch(() => undefined);
    // The worker ends after the item it is applying: a statement still running when its DuckDB
    // connection is closed never settles, and the worker would wait on it for good.
    await this.draining;
    await this.replication?.stop().catch(() => undefined);
    await this.streamEnded?.catch(() => undefined);
    if (this.duckOpen) {
      await this.duck?.run('ROLLBACK').catch(() => undefined);
      this.duckOpen = false;
    }
    this.duck?.closeSync();
    this.duck = undefined;
    this.batch.clear();
  }

  /** Resolves true with `reached`, or false after `ms` (then `giveUp` forgets the waiter). */
  private async within(reached: Promise<void>, ms: number, giveUp: () => void): Promise<boolean> {
    if (!Number.isFinite(ms)) {
      await reached;
      return true;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
    const caughtUp = await Promise.race([reached.then(() => true), timedOut]);
    clearTimeout(timer);
    if (!caughtUp) giveUp();
    return caughtUp;
  }

  private async prepare(): Promise<void> {
    // Spilled batches of a process that was killed while retrying.
    await removeStaleLoads(tmpdir());
    this.duck = await this.options.readModel.connect();
    this.tables = await readModelTables(this.duck, this.options.derived);
    this.batch = new ChangeBatch(this.tables, this.options.derived);
    const reason = await replicationUnavailable(this.options.pool);
    if (reason !== undefined) {
      this.options.log?.(
        `sync: logical replication is not available (${reason}); following the change log instead`,
      );
      this.metrics.mode = 'change-log';
      await this.prepareChangeLog();
      return;
    }
    this.metrics.mode = 'replication';
    // The change log is for stores that cannot replicate; keep none while replicating.
    const wasLogging = await this.options.pool.query(
      'UPDATE sync_change_log_state SET enabled = false WHERE enabled',
    );
    if (wasLogging.rowCount) await this.options.pool.query('DELETE FROM sync_change_log');
    const state = await readSyncState(this.duck);
    await this.dropAbandonedSlots(state?.slotName ?? null);
    const systemId = await this.systemId();
    const usable =
      state !== undefined &&
      state.slotName !== null &&
      state.sourceLsn !== null &&
      state.sourceSystemId === systemId &&
      (await slotExists(this.options.pool, state.slotName));
    if (usable) {
      this.state = state;
    } else {
      if (state?.slotName)
        this.options.log?.(`sync: slot ${state.slotName} is gone; rebuilding the read model`);
      await this.initialLoad(state?.slotName ?? null);
    }
    this.applied = parseLsn(this.state!.sourceLsn!);
    this.metrics.slotName = this.state!.slotName;
    this.metrics.appliedLsn = formatLsn(this.applied);
    this.options.status.committed(this.state!.dataAsOf, 'everything');
  }

  private async initialLoad(previousSlot: string | null): Promise<void> {
    // Named in DuckDB before it exists: if this process dies before the load commits, the
    // next start finds the name and drops the slot instead of leaving it to hold WAL forever.
    const name = newSlotName();
    await this.duck!.run('INSERT INTO sync_pending_slots VALUES ($name)', { name });
    const slot = await createSlotWithSnapshot(this.options.url, name);
    try {
      const result = await fullSync(
        this.options.pool,
        this.options.readModel,
        this.options.derived,
        {
          slot: { name: slot.name, snapshotName: slot.snapshotName, lsn: slot.lsn },
          ...(this.options.onProgress ? { onProgress: this.options.onProgress } : {}),
        },
      );
      this.options.log?.(
        `sync: loaded ${result.rows.toLocaleString('en-US')} rows in ${(result.elapsedMs / 1000).toFixed(1)} s`,
      );
    } catch (error) {
      await slot.release();
      await dropSlot(this.options.pool, slot.name).catch(() => undefined);
      throw error;
    }
    await slot.release();
    if (previousSlot) await dropSlot(this.options.pool, previousSlot).catch(() => undefined);
    await this.duck!.run('DELETE FROM sync_pending_slots WHERE slot_name = $name', { name });
    this.state = await readSyncState(this.duck!);
    this.metrics.fullLoads++;
  }

  /** Slots of loads that never committed (the process died mid-load). */
  private async dropAbandonedSlots(current: string | null): Promise<void> {
    const pending = (
      await this.duck!.runAndReadAll('SELECT slot_name FROM sync_pending_slots')
    ).getRows();
    for (const [name] of pending as [string][]) {
      if (name !== current) await dropSlot(this.options.pool, name).catch(() => undefined);
      await this.duck!.run('DELETE FROM sync_pending_slots WHERE slot_name = $name', { name });
    }
  }

  /** Change-log mode: logging on, a first load when the read model has no snapshot position. */
  private async prepareChangeLog(): Promise<void> {
    await ChangeLogFollower.enableLogging(this.options.pool);
    const state = await readSyncState(this.duck!);
    const usable =
      state?.sourceSnapshot &&
      state.slotName === null &&
      state.sourceSystemId === (await this.systemId());
    if (!usable) {
      const result = await fullSync(
        this.options.pool,
        this.options.readModel,
        this.options.derived,
        this.options.onProgress ? { onProgress: this.options.onProgress } : {},
      );
      this.metrics.fullLoads++;
      this.options.log?.(
        `sync: loaded ${result.rows.toLocaleString('en-US')} rows in ${(result.elapsedMs / 1000).toFixed(1)} s`,
      );
    }
    // Until a poll has read a position, none is known to be passed: every wait polls.
    this.polledTo ??= ZERO_LSN;
    this.follower = new ChangeLogFollower(
      this.options.pool,
      this.duck!,
      this.tables,
      this.options.derived,
    );
    this.options.status.committed((await readSyncState(this.duck!))!.dataAsOf, 'everything');
  }

  /**
   * One change-log poll at a time, whoever asks (the loop, a waiting write, a catch-up). A
   * failed poll does not hold up the next: each starts from the committed snapshot again, and
   * reads the current rows of the keys changed since, so a corrected row is read corrected.
   */
  private pollChangeLog(): Promise<void> {
    const poll = this.polling
      .catch(() => undefined)
      .then(async () => {
        const follower = this.follower;
        if (this.stopped || !follower) throw new Error('The sync is restarting');
        const number = ++this.pollsStarted;
        const result = await follower.poll();
        if (this.polledTo === undefined || result.position > this.polledTo)
          this.polledTo = result.position;
        this.options.status.committed(result.dataAsOf, result.changes);
        this.metrics.rowsApplied += result.changedKeys;
        this.metrics.batchesApplied++;
        this.metrics.lastCommitAt = new Date();
        this.recovered();
        const due = this.pollWaiters.filter((w) => w.after < number);
        this.pollWaiters = this.pollWaiters.filter((w) => w.after >= number);
        for (const w of due) w.resolve();
      });
    this.polling = poll;
    return poll;
  }

  private schedulePoll(): void {
    if (this.stopped || this.recovering) return;
    this.pollTimer = setTimeout(() => {
      this.pollChangeLog().then(
        () => this.schedulePoll(),
        (error: unknown) => this.fail(error),
      );
    }, CHANGE_LOG_POLL_MS);
  }

  private async stream(): Promise<void> {
    const replication = new LogicalReplicationService(
      // pgoutput writes values with the walsender session's output functions: timestamps in
      // its TimeZone, dates in its DateStyle. Set here, whatever the server's or database's
      // defaults, values arrive in the forms DuckDB reads back exactly (another zone gives
      // offsets such as +00:19:32, and a "BC" suffix for the first hours of year 1).
      { connectionString: this.options.url, options: '-c TimeZone=UTC -c DateStyle=ISO,YMD' },
      // Never acknowledged by the library: only a position DuckDB has committed is confirmed.
      { acknowledge: { auto: false, timeoutSeconds: 0 }, flowControl: { enabled: false } },
    );
    this.replication = replication;
    this.decoder = new PgoutputDecoder(this.batch);
    replication.on('data', (_lsn: string, message: Buffer) => this.enqueue(message));
    replication.on('heartbeat', (lsn: string, _time: number, reply: boolean) =>
      this.enqueue({ kind: 'keepalive', lsn: parseLsn(lsn), reply }),
    );
    replication.on('error', (error: Error) => this.fail(error));
    const plugin = new RawPgoutputPlugin({ publicationNames: [PUBLICATION] });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    replication.once('start', () => started());
    this.streamEnded = replication
      .subscribe(plugin, this.state!.slotName!, formatLsn(this.applied))
      .then(
        () => undefined,
        (error: unknown) => this.fail(error),
      );
    await Promise.race([running, this.streamEnded]);
  }

  private enqueue(item: Inbound): void {
    this.queue.push(item);
    if (!this.paused && this.queue.length > QUEUE_HIGH) {
      this.paused = true;
      this.socket()?.pause();
    }
    if (!this.working) this.draining = this.work();
  }

  /** One worker drains the queue in order; PostgreSQL's order is the order of application. */
  private async work(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      while (this.queue.length > 0 && !this.stopped) {
        const item = this.queue.shift()!;
        if (this.paused && this.queue.length < QUEUE_LOW) {
          this.paused = false;
          this.socket()?.resume();
        }
        await this.handle(item);
        // Commit when the queue runs dry (low latency) or the batch is old or large
        // (throughput); while folding after a failure, only at the fold's target.
        if (
          this.pending &&
          !this.inTransaction &&
          (this.recoverTo === undefined || this.pending.endLsn >= this.recoverTo) &&
          (this.queue.length === 0 ||
            Date.now() - this.firstPendingAt > (this.options.commitIntervalMs ?? 200))
        ) {
          await this.commit();
        }
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.working = false;
    }
  }

  private async handle(item: Inbound): Promise<void> {
    if (Buffer.isBuffer(item)) {
      const message = this.decoder!.decode(item);
      switch (message.tag) {
        case 'begin':
          this.inTransaction = true;
          return;
        case 'change':
          this.changed();
          if (this.batch.size >= (this.options.flushRows ?? 50_000)) {
            if (this.recoverTo === undefined) await this.flush();
            else await this.batch.spill();
          }
          return;
        case 'truncate':
          await this.open();
          for (const table of message.tables) {
            // Rows still waiting for these tables are removed by the truncate anyway; the
            // other tables' wait for the flush, so a retry's fold stays whole.
            this.batch.drop(table);
            await this.duck!.run(`DELETE FROM ${table}`);
            this.batch.touchAll(table);
          }
          // Rare: the derived parts are rebuilt whole rather than followed through a truncate.
          for (const part of this.options.derived) await part.rebuild(this.duck!);
          this.changed();
          return;
        case 'commit':
          this.inTransaction = false;
          if (this.pending === undefined) this.firstPendingAt = Date.now();
          this.pending = {
            endLsn: message.endLsn,
            commitTime: message.commitTime,
            rows: this.pending?.rows ?? 0,
          };
          return;
        case 'other':
          return;
      }
    }
    // Everything before a keepalive has been received. A fold after a failure ends at one
    // past its target (the target may lie past the last commit, in WAL of other databases).
    if (
      !this.inTransaction &&
      this.pending &&
      this.recoverTo !== undefined &&
      item.lsn >= this.recoverTo
    ) {
      await this.commit();
    }
    // With nothing half-applied, its position is ours too (this is how an idle slot keeps
    // moving and frees WAL).
    if (!this.inTransaction && this.pending === undefined && item.lsn > this.applied) {
      this.advance(item.lsn);
      await this.confirm();
    } else if (item.reply) {
      await this.confirm();
    }
  }

  /** Counts a row change of the PostgreSQL transaction being received. */
  private changed(): void {
    if (this.pending === undefined) this.firstPendingAt = Date.now();
    this.pending ??= { endLsn: this.applied, commitTime: this.state!.dataAsOf, rows: 0 };
    this.pending.rows++;
  }

  /** Opens the DuckDB transaction that the next commit closes, when none is open. */
  private async open(): Promise<void> {
    if (this.duckOpen) return;
    faultPoint('batch:before-write');
    await this.duck!.run('BEGIN TRANSACTION');
    this.duckOpen = true;
  }

  /** Writes buffered changes into the open DuckDB transaction (opening it when needed). */
  private async flush(): Promise<void> {
    await this.open();
    if (!this.batch.empty) await this.batch.flush(this.duck!);
  }

  private async commit(): Promise<void> {
    const batch = this.pending!;
    await this.flush();
    const state: SyncState = {
      ...this.state!,
      sourceLsn: formatLsn(batch.endLsn),
      dataAsOf: batch.commitTime,
    };
    await writeSyncState(this.duck!, state);
    faultPoint('batch:before-commit');
    await this.duck!.run('COMMIT');
    this.duckOpen = false;
    this.pending = undefined;
    this.state = state;
    this.options.status.committed(state.dataAsOf, this.batch.takeChanges());
    this.metrics.rowsApplied += batch.rows;
    this.metrics.batchesApplied++;
    this.metrics.lastCommitAt = new Date();
    this.reportProgress();
    faultPoint('batch:before-ack');
    this.advance(batch.endLsn);
    await this.confirm();
    faultPoint('batch:after-ack');
  }

  /** While a backlog streams in, one line every few seconds: changes applied, rate, position. */
  private reportProgress(): void {
    const now = Date.now();
    if (this.queue.length === 0 || now - this.lastReport.at < 5000) return;
    const rate =
      ((this.metrics.rowsApplied - this.lastReport.rows) * 1000) / (now - this.lastReport.at);
    if (this.lastReport.at > 0) {
      this.options.log?.(
        `sync: ${this.metrics.rowsApplied.toLocaleString('en-US')} changes applied (${Math.round(rate).toLocaleString('en-US')}/s), at ${this.metrics.appliedLsn}, ${this.queue.length.toLocaleString('en-US')} queued`,
      );
    }
    this.lastReport = { at: now, rows: this.metrics.rowsApplied };
  }

  private advance(lsn: Lsn): void {
    if (lsn <= this.applied) return;
    this.applied = lsn;
    this.metrics.appliedLsn = formatLsn(lsn);
    const due = this.waiters.filter((w) => w.lsn <= lsn);
    this.waiters = this.waiters.filter((w) => w.lsn > lsn);
    for (const w of due) w.resolve();
    if (this.recoverTo !== undefined && lsn >= this.recoverTo) this.recovered();
  }

  /**
   * After a failure: the changes up to the store's current position are applied as one DuckDB
   * transaction. Committed one PostgreSQL transaction at a time, the one that failed would
   * fail again for good, even after its row was corrected by a later one.
   */
  private async foldUpToStore(): Promise<void> {
    this.recoverTo = await this.currentWalLsn();
    if (this.applied >= this.recoverTo) this.recovered();
    else this.keepKeepalivesComing();
  }

  /** The sync got past its failure: it follows the store again, committing as it goes. */
  private recovered(): void {
    this.recoverTo = undefined;
    if (!this.metrics.failure) return;
    this.options.log?.(
      `sync: following the store again after ${this.metrics.failure.attempts} failed attempt${this.metrics.failure.attempts === 1 ? '' : 's'}`,
    );
    this.metrics.failure = null;
  }

  /**
   * With nothing else to stream, the server only moves the sync on when it sends a keepalive:
   * ask for one now and every few milliseconds while a write waits or a fold looks for its end.
   */
  private keepKeepalivesComing(): void {
    this.requestKeepalive().catch(() => undefined);
    this.keepaliveTimer ??= setInterval(() => {
      if (this.waiters.length === 0 && this.recoverTo === undefined) {
        clearInterval(this.keepaliveTimer);
        this.keepaliveTimer = undefined;
      } else {
        this.requestKeepalive().catch(() => undefined);
      }
    }, 20);
  }

  /** Tells PostgreSQL the position DuckDB holds, so the slot may free WAL before it. */
  private async confirm(ping = false): Promise<void> {
    // The library reports `lsn + 1` as flushed; the position to report is the commit's end
    // itself (a later transaction may start exactly there), so hand it one byte less.
    if (this.applied > 0n) await this.replication?.acknowledge(formatLsn(this.applied - 1n), ping);
  }

  private async requestKeepalive(): Promise<void> {
    await this.confirm(true);
  }

  private socket(): { pause(): void; resume(): void } | undefined {
    // pg-logical-replication offers no pause without its own acknowledgements; its
    // connection's socket is the one place to apply backpressure.
    return (
      this.replication as unknown as {
        _connection?: { stream?: { pause(): void; resume(): void } };
      }
    )?._connection?.stream;
  }

  /**
   * Any failure (connection lost, slot dropped, a change the read model cannot hold) abandons
   * what is not committed and starts again from the committed position after a pause that
   * doubles with each failure in a row (retryMs up to retryMaxMs); a lost slot makes
   * prepare() rebuild the read model. Until a retry gets past it, the failure is reported
   * (/healthz 503, /metrics) and writes stop waiting for the read model after writeWaitMs.
   */
  private fail(error: unknown): void {
    if (this.stopped || this.recovering) return;
    this.noteFailure(error);
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
      `sync: ${this.metrics.lastError}; retrying from ${formatLsn(this.applied)} in ${delay / 1000} s`,
    );
    this.recovering = true;
    clearTimeout(this.pollTimer);
    void (async () => {
      await this.replication?.stop().catch(() => undefined);
      this.queue.clear();
      await this.draining;
      await this.polling.catch(() => undefined);
      this.follower = undefined;
      this.paused = false;
      this.inTransaction = false;
      this.pending = undefined;
      this.recoverTo = undefined;
      this.batch.clear();
      this.batch.forgetChanges();
      if (this.duckOpen) await this.duck?.run('ROLLBACK').catch(() => undefined);
      this.duckOpen = false;
      this.duck?.closeSync();
      this.duck = undefined;
      await new Promise((resolve) => (this.retryTimer = setTimeout(resolve, delay)));
      this.recovering = false;
      if (this.stopped) return;
      await this.start().catch((e: unknown) => this.fail(e));
    })();
  }

  private noteFailure(error: unknown): void {
    const apply = error instanceof ApplyError ? error : undefined;
    if (apply) this.metrics.applyFailures++;
    const message = firstLine(error);
    this.metrics.lastError = message;
    this.metrics.lastErrorAt = new Date();
    this.metrics.failure = {
      error: message,
      table: apply?.table ?? null,
      key: apply?.bad?.key ?? null,
      column: apply?.bad?.column ?? null,
      since: this.metrics.failure?.since ?? this.metrics.lastErrorAt,
      attempts: (this.metrics.failure?.attempts ?? 0) + 1,
    };
  }

  private systemId(): Promise<string> {
    return sourceIdentity(this.options.pool);
  }

  /** The end of WAL inserted so far: past every commit made before (also asynchronous ones). */
  private async currentWalLsn(): Promise<Lsn> {
    const result = await this.options.pool.query<{ lsn: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    return parseLsn(result.rows[0]!.lsn);
  }
}
