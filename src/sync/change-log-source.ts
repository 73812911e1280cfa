import { BatchWriter } from './batch-writer.ts';
import { ChangeLogFollower } from './change-log-follower.ts';
import type { ChangeSource, SourceEvents, SyncRun } from './change-source.ts';
import type { PollWaiters } from './position-waiters.ts';
import { prepareForChangeLog } from './read-model-loader.ts';

/** How often the change log is polled for new commits (ms). */
const POLL_MS = 200;

/**
 * Changes from the trigger-fed change log, for stores that cannot replicate: a poll every
 * 200 ms, or at once for someone waiting, each applying everything committed since the last
 * (change-log-follower.ts) in one DuckDB commit. One poll runs at a time, whoever asks. A
 * failed poll does not hold up the next: each starts again from the committed snapshot and
 * reads the current rows of the keys changed since, so a corrected row is read corrected and
 * no fold is needed after a failure.
 */
export class ChangeLogSource implements ChangeSource {
  readonly mode = 'change-log';
  private readonly writer: BatchWriter;
  private readonly follower: ChangeLogFollower;
  private polling: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;

  private constructor(
    run: SyncRun,
    private readonly events: SourceEvents,
    private readonly polls: PollWaiters,
    options: { flushBytes: number },
  ) {
    this.writer = new BatchWriter(run);
    this.follower = new ChangeLogFollower(
      run.pool,
      run.duck,
      run.tables,
      this.writer,
      options.flushBytes,
    );
  }

  /** Turns logging on and loads the read model whole when it has no snapshot to go on from. */
  static async open(
    run: SyncRun,
    events: SourceEvents,
    polls: PollWaiters,
    options: { flushBytes: number },
  ): Promise<ChangeLogSource> {
    const { from, loaded } = await prepareForChangeLog(run);
    if (loaded) events.loaded();
    if (from !== undefined) events.advanced(from);
    return new ChangeLogSource(run, events, polls, options);
  }

  follow(): Promise<void> {
    this.schedule();
    return Promise.resolve();
  }

  catchUp(): Promise<void> {
    return this.poll();
  }

  hurry(): void {
    this.poll().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.polling.catch(() => undefined);
    await this.writer.rollback();
  }

  private schedule(): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.poll().then(
        () => this.schedule(),
        (error: unknown) => this.events.failed(error),
      );
    }, POLL_MS);
  }

  /** Queues a poll after the one running (a failed one too); rejects with its error. */
  private poll(): Promise<void> {
    const poll = this.polling
      .catch(() => undefined)
      .then(async () => {
        if (this.stopping) throw new Error('The sync is restarting');
        const number = this.polls.starting();
        const result = await this.follower.poll();
        this.events.applied(result.changedKeys);
        this.events.advanced(result.position);
        this.events.recovered();
        this.polls.succeeded(number);
      });
    this.polling = poll;
    return poll;
  }
}
