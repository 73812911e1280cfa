import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReadModel } from './read-model.ts';

/** Reads of the read model that run at once, by default: the read model's DuckDB threads. */
export const DEFAULT_ACTIVE_READS = 2;

/** Why a read waited before it ran: a sync batch being written, or its turn among the reads. */
export type ReadWait = 'batch' | 'turn';

/**
 * Read-model connections kept between requests: opening one per request cost several
 * milliseconds of a list's budget. A connection whose work failed is closed, never reused,
 * so no request inherits another's open transaction.
 *
 * At most `maxActive` reads run at once; the others wait their turn, first come first served.
 * Every DuckDB statement of this process runs on one of libuv's four threads: four reports
 * running at once took all of them, and each of the sync's statements queued behind a report
 * (docs/sync.md, "Reads do not starve the sync"). On two cores, more reads at once only share
 * the same CPU more thinly.
 */
export class ConnectionPool {
  private idle: DuckDBConnection[] = [];
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** Told of every wait of a read before it runs, in seconds (the server's /metrics). */
  onWait: ((reason: ReadWait, seconds: number) => void) | undefined;

  constructor(
    private readonly readModel: ReadModel,
    private readonly maxIdle = 4,
    private readonly maxActive = DEFAULT_ACTIVE_READS,
  ) {}

  async use<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    // A batch being written goes first (read-gate.ts); then this read takes its turn.
    const asked = performance.now();
    await this.readModel.gate.pass();
    const passed = performance.now();
    await this.turn();
    if (this.onWait) {
      const started = performance.now();
      if (passed > asked) this.onWait('batch', (passed - asked) / 1000);
      if (started > passed) this.onWait('turn', (started - passed) / 1000);
    }
    try {
      const connection = this.idle.pop() ?? (await this.readModel.connect());
      let reusable = false;
      try {
        const result = await work(connection);
        reusable = true;
        return result;
      } finally {
        if (reusable && this.idle.length < this.maxIdle) this.idle.push(connection);
        else connection.closeSync();
      }
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  close(): void {
    for (const connection of this.idle.splice(0)) connection.closeSync();
  }

  /** Resolves when this read may run: at once below `maxActive`, else when one ends. */
  private turn(): Promise<void> {
    if (this.active < this.maxActive) {
      this.active++;
      return Promise.resolve();
    }
    // The read ending hands its place over, so `active` stays as it is.
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
