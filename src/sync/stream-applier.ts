import type { SyncState } from '../readmodel/sync-state.ts';
import type { BatchWriter } from './batch-writer.ts';
import type { SourceEvents } from './change-source.ts';
import { faultPoint } from './fault-points.ts';
import { formatLsn, parseLsn, type Lsn } from './lsn.ts';
import { PgoutputDecoder } from './replication/pgoutput-decoder.ts';

/** A pgoutput message (undecoded), or a keepalive of the server. */
export type Inbound = Buffer | { kind: 'keepalive'; lsn: Lsn; reply: boolean };

export interface StreamApplierOptions {
  /** Changes held in memory before they are written into the open DuckDB transaction… */
  flushRows: number;
  /** …or bytes of their lines, whichever comes first. */
  flushBytes: number;
  /** Commit to DuckDB at least this often while changes stream in (ms). */
  commitIntervalMs: number;
  /** Tells the server the read model holds everything up to `position` (and asks for a
   * keepalive with `ping`). */
  confirm(position: Lsn, ping: boolean): Promise<void>;
}

/**
 * Applies the replication stream, message by message in the server's order, to the read
 * model: complete PostgreSQL transactions are grouped into one DuckDB commit, which carries
 * the end LSN of the last of them as the read model's position, and only then is that
 * position confirmed to the server. After a failure it folds (`foldUpTo`): see there.
 */
export class StreamApplier {
  private readonly decoder: PgoutputDecoder;
  private applied: Lsn;
  /** A PostgreSQL transaction is half received: a DuckDB commit must not cut it. */
  private inTransaction = false;
  /** Received whole (or being received), not yet committed to DuckDB. */
  private pending: { endLsn: Lsn; commitTime: Date; rows: number } | undefined;
  private firstPendingAt = 0;
  /** Set while folding after a failure: the store's position the fold commits at. */
  private foldTo: Lsn | undefined;

  constructor(
    private readonly writer: BatchWriter,
    private state: SyncState,
    private readonly events: SourceEvents,
    private readonly options: StreamApplierOptions,
  ) {
    this.decoder = new PgoutputDecoder(writer.batch);
    this.applied = parseLsn(state.sourceLsn!);
  }

  /** The read model's position: where the stream resumes, and what is confirmed. */
  get position(): Lsn {
    return this.applied;
  }

  /** Whether a fold after a failure is still looking for its end. */
  get folding(): boolean {
    return this.foldTo !== undefined;
  }

  /**
   * After a failure, applies every change up to `target` (the store's position when the
   * retry began) as one DuckDB transaction, spilled to disk past `flushRows` or `flushBytes`. Committed one
   * PostgreSQL transaction at a time, the one that failed would fail again for good, even
   * after a later one corrected its row; folded per key, the corrected row supersedes it.
   * Returns false when there is nothing to fold.
   */
  foldUpTo(target: Lsn): boolean {
    if (this.applied >= target) {
      this.events.recovered();
      return false;
    }
    this.foldTo = target;
    return true;
  }

  /** Applies one message of the stream (or keepalive) into the open DuckDB transaction. */
  async handle(item: Inbound): Promise<void> {
    if (!Buffer.isBuffer(item)) return this.keepalive(item.lsn, item.reply);
    const message = this.decoder.decode(item);
    switch (message.tag) {
      case 'begin':
        this.inTransaction = true;
        return;
      case 'change':
        this.changed();
        if (
          this.writer.batch.size >= this.options.flushRows ||
          this.writer.batch.memoryBytes >= this.options.flushBytes
        ) {
          // A fold must not write a row before it has seen the change that may correct it.
          if (this.foldTo === undefined) await this.writer.flush();
          else await this.writer.batch.spill();
        }
        return;
      case 'truncate':
        await this.writer.truncate(message.tables);
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

  /**
   * Commits what is pending when it is due: when nothing more is queued (`drained`, for low
   * latency) or the oldest pending change waited `commitIntervalMs` (throughput under load);
   * while folding, only once the fold's target is reached. Returns the row changes it
   * committed, undefined when no commit was due.
   */
  async commitIfDue(drained: boolean): Promise<number | undefined> {
    if (this.pending === undefined || this.inTransaction) return undefined;
    if (this.foldTo !== undefined && this.pending.endLsn < this.foldTo) return undefined;
    if (!drained && Date.now() - this.firstPendingAt <= this.options.commitIntervalMs) {
      return undefined;
    }
    return this.commit();
  }

  private async keepalive(lsn: Lsn, reply: boolean): Promise<void> {
    // Everything before a keepalive has been received. A fold ends at one past its target
    // (the target may lie past the last commit, in WAL of other databases).
    if (!this.inTransaction && this.pending && this.foldTo !== undefined && lsn >= this.foldTo) {
      await this.commit();
    }
    // With nothing half-applied, its position is ours too: this is how an idle slot keeps
    // moving and frees WAL.
    if (!this.inTransaction && this.pending === undefined && lsn > this.applied) {
      this.advance(lsn);
      await this.options.confirm(this.applied, false);
    } else if (reply) {
      await this.options.confirm(this.applied, false);
    }
  }

  /** Counts a row change of the PostgreSQL transaction being received. */
  private changed(): void {
    if (this.pending === undefined) this.firstPendingAt = Date.now();
    this.pending ??= { endLsn: this.applied, commitTime: this.state.dataAsOf, rows: 0 };
    this.pending.rows++;
  }

  private async commit(): Promise<number> {
    const batch = this.pending!;
    const state: SyncState = {
      ...this.state,
      sourceLsn: formatLsn(batch.endLsn),
      dataAsOf: batch.commitTime,
    };
    await this.writer.commit(state);
    this.pending = undefined;
    this.state = state;
    this.events.applied(batch.rows);
    faultPoint('batch:before-ack');
    this.advance(batch.endLsn);
    await this.options.confirm(this.applied, false);
    faultPoint('batch:after-ack');
    return batch.rows;
  }

  private advance(lsn: Lsn): void {
    if (lsn <= this.applied) return;
    this.applied = lsn;
    this.events.advanced(lsn);
    if (this.foldTo !== undefined && lsn >= this.foldTo) {
      // Past the fold: commit as the changes come again.
      this.foldTo = undefined;
      this.events.recovered();
    }
  }
}
