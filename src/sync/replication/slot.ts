import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The publication of sql/postgres/0002: every table the read model copies. */
export const PUBLICATION = 'ledgerline_read_model';

export interface CreatedSlot {
  name: string;
  /** The slot's consistent point: its stream starts right after what the snapshot shows. */
  lsn: string;
  /** Valid while `release()` has not been called; import it with SET TRANSACTION SNAPSHOT. */
  snapshotName: string;
  release(): Promise<void>;
}

/**
 * A fresh slot name: one slot per read model, so two servers on one database never share one.
 * A named node's slots carry its name (`ledgerline_<node>_<hex>`), so that an operator sees
 * whose slot holds WAL; a load makes a new slot before it drops the old, hence the suffix.
 */
export function newSlotName(node?: string): string {
  const suffix = randomBytes(6).toString('hex');
  return node === undefined ? `ledgerline_${suffix}` : `ledgerline_${node}_${suffix}`;
}

/**
 * Creates a logical replication slot (pgoutput) and exports the snapshot it starts from.
 * The replication connection must stay open and idle until the copy has imported the
 * snapshot; `release()` closes it.
 */
export async function createSlotWithSnapshot(url: string, name: string): Promise<CreatedSlot> {
  const client = new pg.Client({
    connectionString: url,
    replication: 'database',
  } as pg.ClientConfig);
  await client.connect();
  try {
    // The pre-15 spelling of (SNAPSHOT 'export'), which PostgreSQL 14+ all accept.
    const result = await client.query<{ consistent_point: string; snapshot_name: string }>(
      `CREATE_REPLICATION_SLOT "${name}" LOGICAL pgoutput EXPORT_SNAPSHOT`,
    );
    const row = result.rows[0]!;
    return {
      name,
      lsn: row.consistent_point,
      snapshotName: row.snapshot_name,
      release: () => client.end(),
    };
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
}

export async function slotExists(pool: pg.Pool, name: string): Promise<boolean> {
  const result = await pool.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [
    name,
  ]);
  return result.rowCount === 1;
}

/** Drops a slot nobody streams from; a missing slot is fine. */
export async function dropSlot(pool: pg.Pool, name: string): Promise<void> {
  await pool.query(
    'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active',
    [name],
  );
}

/**
 * Whether this server can feed the read model by logical replication: wal_level logical,
 * and a role allowed to replicate. When it cannot, the sync falls back to copying.
 */
export async function replicationUnavailable(pool: pg.Pool): Promise<string | undefined> {
  const result = await pool.query<{ wal_level: string; can: boolean }>(
    `SELECT current_setting('wal_level') AS wal_level,
            (SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user) AS can`,
  );
  const row = result.rows[0]!;
  if (row.wal_level !== 'logical') return `wal_level is ${row.wal_level}, not logical`;
  if (!row.can) return 'the role may not replicate';
  return undefined;
}
