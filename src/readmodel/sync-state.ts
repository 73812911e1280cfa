import type { DuckDBConnection } from '@duckdb/node-api';

/** Where the read model stands, kept in DuckDB beside the rows it describes. */
export interface SyncState {
  /** PostgreSQL system identifier: a read model of another cluster must be rebuilt. */
  sourceSystemId: string;
  /** Commit time of the newest change applied (or of the snapshot a load copied). */
  dataAsOf: Date;
  /** Every change committed at or before this LSN is applied. */
  sourceLsn: string | null;
  /** The replication slot followed; null after a plain copy with no slot. */
  slotName: string | null;
  /** Change-log mode: every transaction visible in this pg_snapshot is applied. */
  sourceSnapshot: string | null;
  fullLoads: number;
  rowsLoaded: bigint;
}

export async function readSyncState(duck: DuckDBConnection): Promise<SyncState | undefined> {
  const reader = await duck.runAndReadAll(
    `SELECT source_system_id, strftime(data_as_of AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ'), source_lsn, slot_name, source_snapshot, full_loads, rows_loaded
     FROM sync_state LIMIT 1`,
  );
  const row = reader.getRows()[0];
  if (!row) return undefined;
  const [system, asOf, lsn, slot, snapshot, loads, rows] = row as [
    string,
    string,
    string | null,
    string | null,
    string | null,
    number,
    bigint,
  ];
  return {
    sourceSystemId: system,
    dataAsOf: new Date(asOf),
    sourceLsn: lsn,
    slotName: slot,
    sourceSnapshot: snapshot,
    fullLoads: loads,
    rowsLoaded: rows,
  };
}

/** Replaces the state; call it inside the DuckDB transaction that applies the rows it covers. */
export async function writeSyncState(duck: DuckDBConnection, state: SyncState): Promise<void> {
  const values = {
    system: state.sourceSystemId,
    asOf: state.dataAsOf.toISOString(),
    lsn: state.sourceLsn,
    slot: state.slotName,
    snapshot: state.sourceSnapshot,
    loads: state.fullLoads,
    rows: state.rowsLoaded,
  };
  // Every sync batch writes it: one statement, and an insert only into an empty table.
  const updated = await duck.run(
    `UPDATE sync_state SET source_system_id = $system, data_as_of = $asOf::TIMESTAMPTZ,
       source_lsn = $lsn, slot_name = $slot, source_snapshot = $snapshot, synced_at = now(),
       full_loads = $loads, rows_loaded = $rows`,
    values,
  );
  if (updated.rowsChanged > 0) return;
  await duck.run(
    `INSERT INTO sync_state VALUES (1, $system, $asOf::TIMESTAMPTZ, $lsn, $slot, $snapshot, now(), $loads, $rows)`,
    values,
  );
}
