import { readSyncState } from '../sync/sync-state.ts';
import type { ReadModel } from './read-model.ts';

/**
 * Whether the read model can answer, and how fresh it is. Reports answer 503 until a first
 * sync has completed; every GET carries `X-Data-As-Of` from here.
 */
export class ReadModelStatus {
  dataAsOf: Date | null = null;

  get ready(): boolean {
    return this.dataAsOf !== null;
  }

  /** Picks up the position of a sync that completed in an earlier run. */
  async load(readModel: ReadModel): Promise<void> {
    const connection = await readModel.connect();
    try {
      this.dataAsOf = (await readSyncState(connection))?.dataAsOf ?? null;
    } finally {
      connection.closeSync();
    }
  }
}
