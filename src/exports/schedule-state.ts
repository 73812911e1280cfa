import type pg from 'pg';
import type { JournalPosition } from './manifest.ts';

/**
 * What a schedule remembers between runs and restarts, kept in the store
 * (`export_schedule_state`, sql/postgres/0012_export_schedules.sql) so that every API node of
 * the store reads the same: a schedule runs once across nodes (docs/exports.md, "Schedules").
 */
export interface ScheduleState {
  /** When a node first knew the schedule: times before it are not owed. */
  since: Date;
  lastScheduledAt: Date | null;
  lastRunFolder: string | null;
  lastPosition: JournalPosition | null;
  /** The node that ran it last, which runs the next time first. */
  lastNode: string | null;
}

/** The first key of the schedules' advisory locks: "LLES" (ledgerline export schedules). */
const LOCK_CLASS = 0x4c4c4553;

/** Records a schedule's first state unless the store has one (another node's, or an earlier run's). */
export async function ensureScheduleState(
  pool: pg.Pool,
  id: string,
  initial: ScheduleState,
): Promise<void> {
  await pool.query(
    `INSERT INTO export_schedule_state
       (schedule_id, since, last_scheduled_at, last_run_folder, last_load_id, last_change_no, last_node)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (schedule_id) DO NOTHING`,
    [id, ...columns(initial)],
  );
}

/** A schedule held by this process: its state, read and written under the lock. */
export interface ScheduleClaim {
  read(): Promise<ScheduleState | undefined>;
  write(state: ScheduleState): Promise<void>;
  /** Lets the lock go (a process that dies lets it go with its connection). */
  release(): Promise<void>;
}

/**
 * Takes the schedule's lock for one run, or answers undefined when another process (on this
 * node or another) holds it. The lock is a session advisory lock on a connection held for the
 * run: PostgreSQL frees it when that connection ends, so a node killed mid-run leaves no lock
 * behind, and a run holds no transaction open while it exports.
 */
export async function claimSchedule(pool: pg.Pool, id: string): Promise<ScheduleClaim | undefined> {
  const client = await pool.connect();
  let got: boolean;
  try {
    const { rows } = await client.query<{ got: boolean }>(
      'SELECT pg_try_advisory_lock($1, hashtext($2)) AS got',
      [LOCK_CLASS, id],
    );
    got = rows[0]!.got;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  if (!got) {
    client.release();
    return undefined;
  }
  let released = false;
  return {
    async read() {
      const { rows } = await client.query<{
        since: Date;
        last_scheduled_at: Date | null;
        last_run_folder: string | null;
        last_load_id: string | null;
        last_change_no: string | null;
        last_node: string | null;
      }>(
        `SELECT since, last_scheduled_at, last_run_folder, last_load_id, last_change_no::text, last_node
         FROM export_schedule_state WHERE schedule_id = $1`,
        [id],
      );
      const row = rows[0];
      if (!row) return undefined;
      return {
        since: row.since,
        lastScheduledAt: row.last_scheduled_at,
        lastRunFolder: row.last_run_folder,
        lastPosition:
          row.last_load_id === null || row.last_change_no === null
            ? null
            : { loadId: row.last_load_id, changeNo: Number(row.last_change_no) },
        lastNode: row.last_node,
      };
    },
    async write(state) {
      await client.query(
        `UPDATE export_schedule_state SET since = $2, last_scheduled_at = $3, last_run_folder = $4,
           last_load_id = $5, last_change_no = $6, last_node = $7, updated_at = now()
         WHERE schedule_id = $1`,
        [id, ...columns(state)],
      );
    },
    async release() {
      if (released) return;
      released = true;
      try {
        await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, id]);
        client.release();
      } catch (error) {
        // A connection that failed is closed, not pooled: its lock goes with it.
        client.release(error as Error);
      }
    },
  };
}

function columns(state: ScheduleState): unknown[] {
  return [
    state.since,
    state.lastScheduledAt,
    state.lastRunFolder,
    state.lastPosition?.loadId ?? null,
    state.lastPosition?.changeNo ?? null,
    state.lastNode,
  ];
}
