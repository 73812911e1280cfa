import { readSyncState, type SyncState } from '../readmodel/sync-state.ts';
import { ChangeLogFollower } from './change-log-follower.ts';
import type { SyncRun } from './change-source.ts';
import { fullSync, type SyncResult } from './full-sync.ts';
import { storeLsn } from './store-position.ts';
import type { Lsn } from './lsn.ts';
import { createSlotWithSnapshot, dropSlot, newSlotName, slotExists } from './replication/slot.ts';
import { sourceIdentity } from './source-identity.ts';

/** What a change source starts from, and whether the read model had to be loaded whole. */
export interface Loaded<T> {
  from: T;
  loaded: boolean;
}

/**
 * Replication mode: the sync state to stream from. The read model is loaded whole, under the
 * snapshot of a new slot, when it has no slot position, its slot is gone (lost past
 * max_slot_wal_keep_size, say) or it is a copy of another cluster.
 */
export async function prepareForReplication(run: SyncRun): Promise<Loaded<SyncState>> {
  // The change log is for stores that cannot replicate; keep none while replicating.
  const wasLogging = await run.pool.query(
    'UPDATE sync_change_log_state SET enabled = false WHERE enabled',
  );
  if (wasLogging.rowCount) await run.pool.query('DELETE FROM sync_change_log');
  const state = await readSyncState(run.duck);
  await dropAbandonedSlots(run, state?.slotName ?? null);
  const usable =
    state !== undefined &&
    state.slotName !== null &&
    state.sourceLsn !== null &&
    state.sourceSystemId === (await sourceIdentity(run.pool)) &&
    (await slotExists(run.pool, state.slotName));
  if (state?.slotName && !usable) {
    run.log(`sync: slot ${state.slotName} is gone; rebuilding the read model`);
  }
  if (!usable) await emptyForLoad(run);
  const from = usable ? state : await loadWithNewSlot(run, state?.slotName ?? null);
  readModelAsItStands(run, from);
  return { from, loaded: !usable };
}

/**
 * Change-log mode: logging on, and a first load when the read model has no snapshot position
 * of this cluster. Returns the position of a load made here: the store's WAL insert position
 * read before the load took its snapshot (the rule for change-log positions: docs/sync.md,
 * "Positions"); undefined when nothing was loaded.
 */
export async function prepareForChangeLog(run: SyncRun): Promise<Loaded<Lsn | undefined>> {
  // The change log carries every row: it cannot follow a publication's share of them.
  if (run.publication !== undefined)
    throw new Error(
      `PUBLICATION ${run.publication} needs logical replication, which this store does not allow`,
    );
  await ChangeLogFollower.enableLogging(run.pool);
  const state = await readSyncState(run.duck);
  const usable =
    state?.sourceSnapshot &&
    state.slotName === null &&
    state.sourceSystemId === (await sourceIdentity(run.pool));
  let position: Lsn | undefined;
  if (!usable) {
    await emptyForLoad(run);
    position = await storeLsn(run.pool);
    run.status.reloading();
    logLoad(
      run,
      await fullSync(run.pool, run.readModel, run.derived, {
        ...(run.onProgress ? { onProgress: run.onProgress } : {}),
      }),
    );
  }
  readModelAsItStands(run, (await readSyncState(run.duck))!);
  return { from: position, loaded: !usable };
}

/**
 * A read model is made anew before it is loaded whole: one that held a load, or rows of a load
 * that never finished, would otherwise have millions of rows deleted first (which ran out of
 * the read model's memory at 10M entries). It answers nothing from here until the load
 * commits (docs/sync.md, "A load commits in steps").
 */
async function emptyForLoad(run: SyncRun): Promise<void> {
  run.status.reloading();
  await run.readModel.makeAnew(run.duck);
}

/** Readers learn the read model's age, and that anything in it may have changed. */
function readModelAsItStands(run: SyncRun, state: SyncState): void {
  run.status.committed(state.dataAsOf, 'everything');
}

async function loadWithNewSlot(run: SyncRun, previousSlot: string | null): Promise<SyncState> {
  // Named in DuckDB before it exists: if this process dies before the load commits, the next
  // start finds the name and drops the slot instead of leaving it to hold WAL forever.
  const name = newSlotName(run.nodeName);
  await run.duck.run('INSERT INTO sync_pending_slots VALUES ($name)', { name });
  const slot = await createSlotWithSnapshot(run.url, name);
  run.status.reloading();
  try {
    logLoad(
      run,
      await fullSync(run.pool, run.readModel, run.derived, {
        slot: { name: slot.name, snapshotName: slot.snapshotName, lsn: slot.lsn },
        ...(run.onProgress ? { onProgress: run.onProgress } : {}),
        ...(run.publication === undefined ? {} : { publication: run.publication }),
      }),
    );
  } catch (error) {
    await slot.release();
    await dropSlot(run.pool, slot.name).catch(() => undefined);
    throw error;
  }
  await slot.release();
  if (previousSlot) await dropSlot(run.pool, previousSlot).catch(() => undefined);
  await run.duck.run('DELETE FROM sync_pending_slots WHERE slot_name = $name', { name });
  return (await readSyncState(run.duck))!;
}

/** Drops the slots of loads that never committed (their process died mid-load). */
async function dropAbandonedSlots(run: SyncRun, current: string | null): Promise<void> {
  const pending = (
    await run.duck.runAndReadAll('SELECT slot_name FROM sync_pending_slots')
  ).getRows();
  for (const [name] of pending as [string][]) {
    if (name !== current) await dropSlot(run.pool, name).catch(() => undefined);
    await run.duck.run('DELETE FROM sync_pending_slots WHERE slot_name = $name', { name });
  }
}

function logLoad(run: SyncRun, result: SyncResult): void {
  run.log(
    `sync: loaded ${result.rows.toLocaleString('en-US')} rows in ${(result.elapsedMs / 1000).toFixed(1)} s`,
  );
}
