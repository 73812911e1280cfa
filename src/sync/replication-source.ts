import { LogicalReplicationService } from 'pg-logical-replication';
import type { SyncState } from '../readmodel/sync-state.ts';
import { BatchWriter } from './batch-writer.ts';
import type { ChangeSource, SourceEvents, SyncRun } from './change-source.ts';
import { formatLsn, parseLsn, type Lsn } from './lsn.ts';
import type { PositionWaiters } from './position-waiters.ts';
import { Queue } from './queue.ts';
import { prepareForReplication } from './read-model-loader.ts';
import { RawPgoutputPlugin } from './replication/raw-pgoutput-plugin.ts';
import { pauseStream } from './replication/stream-pause.ts';
import { PUBLICATION } from './replication/slot.ts';
import { storeLsn } from './store-position.ts';
import { StreamApplier, type Inbound } from './stream-applier.ts';

// Stop reading from PostgreSQL past this many queued messages or bytes, go on below the
// second of each: a queue of the longest rows the store holds (about 2 MB a message, old and
// new row) stays within memory too.
const QUEUE_HIGH = 100_000;
const QUEUE_LOW = 20_000;
const QUEUE_HIGH_BYTES = 64 * 1024 * 1024;
const QUEUE_LOW_BYTES = 16 * 1024 * 1024;

export interface ReplicationOptions {
  flushRows: number;
  flushBytes: number;
  commitIntervalMs: number;
}

/**
 * Changes from the logical replication slot. Messages are queued as they arrive (reading
 * from the server pauses while the queue is long) and one worker hands them to the
 * StreamApplier in the server's order, which is the order of application. While someone
 * waits for a position, or a fold looks for its end, it asks the server for keepalives: an
 * idle stream only moves when one comes.
 */
export class ReplicationSource implements ChangeSource {
  readonly mode = 'replication';
  /** The slot the read model follows. */
  readonly slotName: string;
  private readonly writer: BatchWriter;
  private readonly applier: StreamApplier;
  private stream: LogicalReplicationService | undefined;
  private streamEnded: Promise<void> | undefined;
  private readonly queue = new Queue<Inbound>();
  private paused = false;
  /** Bytes of the messages queued (keepalives count for nothing). */
  private queuedBytes = 0;
  private working = false;
  /** The worker while it runs; it never rejects (errors go to SourceEvents.failed). */
  private draining: Promise<void> = Promise.resolve();
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private lastReport = { at: 0, rows: 0 };
  private rowsApplied = 0;

  private constructor(
    private readonly run: SyncRun,
    state: SyncState,
    private readonly events: SourceEvents,
    private readonly waiters: PositionWaiters,
    options: ReplicationOptions,
  ) {
    this.slotName = state.slotName!;
    this.writer = new BatchWriter(run);
    this.applier = new StreamApplier(this.writer, state, events, {
      ...options,
      confirm: (position, ping) => this.confirm(position, ping),
    });
  }

  /** Loads the read model whole (with a new slot) when it has no slot position to go on from. */
  static async open(
    run: SyncRun,
    events: SourceEvents,
    waiters: PositionWaiters,
    options: ReplicationOptions,
  ): Promise<ReplicationSource> {
    const { from, loaded } = await prepareForReplication(run);
    if (loaded) events.loaded();
    events.advanced(parseLsn(from.sourceLsn!));
    return new ReplicationSource(run, from, events, waiters, options);
  }

  async follow(fold: boolean): Promise<void> {
    if (fold && this.applier.foldUpTo(await storeLsn(this.run.pool))) this.hurry();
    await this.subscribe();
  }

  async catchUp(): Promise<void> {
    const target = await storeLsn(this.run.pool);
    await this.subscribe();
    if (this.applier.position >= target) return;
    const wait = this.waiters.wait(target);
    this.hurry();
    await wait.reached;
  }

  /** Asks for a keepalive now, and every 20 ms while someone waits or a fold looks for its end. */
  hurry(): void {
    this.requestKeepalive();
    this.keepaliveTimer ??= setInterval(() => {
      if (this.waiters.size > 0 || this.applier.folding) return this.requestKeepalive();
      clearInterval(this.keepaliveTimer);
      this.keepaliveTimer = undefined;
    }, 20);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.keepaliveTimer);
    await this.stream?.stop().catch(() => undefined);
    this.queue.clear();
    this.queuedBytes = 0;
    // The worker ends after the item it is applying: a statement still running when its
    // DuckDB connection is closed never settles, and the worker would wait on it for good.
    await this.draining;
    await this.streamEnded?.catch(() => undefined);
    await this.writer.rollback();
  }

  private async subscribe(): Promise<void> {
    if (this.stopping) return;
    const stream = new LogicalReplicationService(
      // pgoutput writes values with the walsender session's output functions: timestamps in
      // its TimeZone, dates in its DateStyle. Set here, whatever the server's or database's
      // defaults, values arrive in the forms DuckDB reads back exactly (another zone gives
      // offsets such as +00:19:32, and a "BC" suffix for the first hours of year 1).
      { connectionString: this.run.url, options: '-c TimeZone=UTC -c DateStyle=ISO,YMD' },
      // Never acknowledged by the library: only a position DuckDB has committed is confirmed.
      { acknowledge: { auto: false, timeoutSeconds: 0 }, flowControl: { enabled: false } },
    );
    this.stream = stream;
    stream.on('data', (_lsn: string, message: Buffer) => this.enqueue(message));
    stream.on('heartbeat', (lsn: string, _time: number, reply: boolean) =>
      this.enqueue({ kind: 'keepalive', lsn: parseLsn(lsn), reply }),
    );
    stream.on('error', (error: Error) => this.events.failed(error));
    const plugin = new RawPgoutputPlugin({
      publicationNames: [this.run.publication ?? PUBLICATION],
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    stream.once('start', () => started());
    this.streamEnded = stream
      .subscribe(plugin, this.slotName, formatLsn(this.applier.position))
      .then(
        () => undefined,
        (error: unknown) => this.events.failed(error),
      );
    await Promise.race([running, this.streamEnded]);
  }

  private enqueue(item: Inbound): void {
    this.queue.push(item);
    if (Buffer.isBuffer(item)) this.queuedBytes += item.length;
    if (!this.paused && (this.queue.length > QUEUE_HIGH || this.queuedBytes > QUEUE_HIGH_BYTES)) {
      this.paused = true;
      pauseStream(this.stream, true);
    }
    if (!this.working) this.draining = this.work();
  }

  /** The one worker: drains the queue in order, committing when the applier finds it due. */
  private async work(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      while (this.queue.length > 0 && !this.stopping) {
        const item = this.queue.shift()!;
        if (Buffer.isBuffer(item)) this.queuedBytes -= item.length;
        if (this.paused && this.queue.length < QUEUE_LOW && this.queuedBytes < QUEUE_LOW_BYTES) {
          this.paused = false;
          pauseStream(this.stream, false);
        }
        await this.applier.handle(item);
        const committed = await this.applier.commitIfDue(this.queue.length === 0);
        if (committed !== undefined) this.reportProgress(committed);
      }
    } catch (error) {
      this.events.failed(error);
    } finally {
      this.working = false;
    }
  }

  /** Tells the server the read model holds `position`, so the slot may free WAL before it. */
  private async confirm(position: Lsn, ping: boolean): Promise<void> {
    // The library reports `lsn + 1` as flushed; the position to report is the commit's end
    // itself (a later transaction may start exactly there), so hand it one byte less.
    if (position > 0n) await this.stream?.acknowledge(formatLsn(position - 1n), ping);
  }

  private requestKeepalive(): void {
    this.confirm(this.applier.position, true).catch(() => undefined);
  }

  /** While a backlog streams in, one line every few seconds: changes applied, rate, position. */
  private reportProgress(rows: number): void {
    this.rowsApplied += rows;
    const now = Date.now();
    if (this.queue.length === 0 || now - this.lastReport.at < 5000) return;
    const rate = ((this.rowsApplied - this.lastReport.rows) * 1000) / (now - this.lastReport.at);
    if (this.lastReport.at > 0) {
      this.run.log(
        `sync: ${this.rowsApplied.toLocaleString('en-US')} changes applied (${Math.round(rate).toLocaleString('en-US')}/s), at ${formatLsn(this.applier.position)}, ${this.queue.length.toLocaleString('en-US')} queued`,
      );
    }
    this.lastReport = { at: now, rows: this.rowsApplied };
  }
}
