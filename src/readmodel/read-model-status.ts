import { readSyncState } from './sync-state.ts';
import type { ReadModel } from './read-model.ts';

/**
 * The tables whose changed ids a commit reports (the record cache keeps their rows); a
 * commit reports only the names of the other tables it changed.
 */
export const TRACKED_ID_TABLES: ReadonlySet<string> = new Set(['clients', 'projects', 'invoices']);

/**
 * What one read-model commit changed: per table, the ids of changed rows (tracked tables),
 * or null when the table changed in ways not listed by id. `everything` after a (re)load.
 */
export type ReadModelChanges = ReadonlyMap<string, ReadonlySet<string> | null> | 'everything';

/**
 * Whether the read model can answer, and how fresh it is. Reports answer 503 until a first
 * sync has completed; every GET carries `X-Data-As-Of` from here. Whatever writes the read
 * model reports each commit through `committed`, before anyone waiting for that commit is
 * released, so caches of read-model rows are current when a write's response is sent.
 */
export class ReadModelStatus {
  private asOf: Date | null = null;
  private readonly listeners: ((changes: ReadModelChanges) => void)[] = [];

  get dataAsOf(): Date | null {
    return this.asOf;
  }

  get ready(): boolean {
    return this.asOf !== null;
  }

  /** A commit of the read model: its data's time, and what it changed. */
  committed(dataAsOf: Date, changes: ReadModelChanges): void {
    this.asOf = dataAsOf;
    for (const listener of this.listeners) listener(changes);
  }

  /**
   * The read model is being loaded whole again (its slot was lost, say): it answers nothing
   * until the load commits, since the load commits its slices one by one (docs/sync.md).
   */
  reloading(): void {
    this.asOf = null;
  }

  onChange(listener: (changes: ReadModelChanges) => void): void {
    this.listeners.push(listener);
  }

  /** Picks up the position of a sync that completed in an earlier run. */
  async load(readModel: ReadModel): Promise<void> {
    const connection = await readModel.connect();
    try {
      const state = await readSyncState(connection);
      if (state) this.committed(state.dataAsOf, 'everything');
    } finally {
      connection.closeSync();
    }
  }
}
