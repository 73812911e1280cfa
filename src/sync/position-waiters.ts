/** A wait handed out by the waiters below: `reached` resolves, or `cancel` forgets it. */
export interface Wait {
  reached: Promise<void>;
  cancel(): void;
}

/**
 * Who waits for which mark. A waiter names a mark and is released once the sync reports a
 * mark at or past it: in replication mode the mark is an LSN the read model has reached; in
 * change-log mode the number of a successful poll (`PollWaiters`).
 */
export class PositionWaiters {
  private waiting: { until: bigint; resolve: () => void }[] = [];

  /** Waiters not yet released. */
  get size(): number {
    return this.waiting.length;
  }

  /** Resolves once `reach` is called with `until` or more. */
  wait(until: bigint): Wait {
    const waiter = { until, resolve: (): void => undefined };
    const reached = new Promise<void>((resolve) => (waiter.resolve = resolve));
    this.waiting.push(waiter);
    return {
      reached,
      cancel: () => {
        this.waiting = this.waiting.filter((w) => w !== waiter);
      },
    };
  }

  /** Releases every waiter whose mark is `mark` or less. */
  reach(mark: bigint): void {
    const due = this.waiting.filter((w) => w.until <= mark);
    if (due.length === 0) return;
    this.waiting = this.waiting.filter((w) => w.until > mark);
    for (const w of due) w.resolve();
  }
}

/**
 * Change-log mode: a waiter is released by the first successful poll that started after it
 * asked. That poll's snapshot was taken after the call, so it sees every commit that was
 * visible at the call; a poll that fails releases nobody. Polls are numbered here rather
 * than by the change source, so that waiters outlive the restart after a failure.
 */
export class PollWaiters {
  private started = 0;
  private readonly waiters = new PositionWaiters();

  /** A poll starts: its number, for `succeeded`. */
  starting(): number {
    return ++this.started;
  }

  succeeded(poll: number): void {
    this.waiters.reach(BigInt(poll));
  }

  /** Waits for the first successful poll numbered above every poll started so far. */
  wait(): Wait {
    return this.waiters.wait(BigInt(this.started + 1));
  }
}

/** True once `wait` is reached, false after `ms` (then the waiter is forgotten). */
export async function within(wait: Wait, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) {
    await wait.reached;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)));
  const reached = await Promise.race([wait.reached.then(() => true), timedOut]);
  clearTimeout(timer);
  if (!reached) wait.cancel();
  return reached;
}
