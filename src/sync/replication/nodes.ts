import type pg from 'pg';

/** A read model's replication slot, as `npm run cli -- nodes` lists it. */
export interface NodeSlot {
  slot: string;
  /** The node's name from the slot's (`ledgerline_<node>_<hex>`, newSlotName); null: unnamed. */
  node: string | null;
  /** A node streams from it now. */
  active: boolean;
  /** WAL bytes written since the position the node last confirmed: how far behind it is. */
  lagBytes: bigint;
  /** WAL bytes PostgreSQL keeps for it. */
  retainedBytes: bigint;
  /** PostgreSQL's `wal_status`: reserved, extended, unreserved, or lost (past max_slot_wal_keep_size). */
  walStatus: string | null;
  /** Since when nobody streams from it (PostgreSQL 17+; null otherwise, or while active). */
  inactiveSince: Date | null;
}

const SLOT = /^ledgerline_(?:([a-z0-9_]{1,40})_)?[0-9a-f]{12}$/;

/** The read models' slots of the store's database, by name. */
export async function listNodeSlots(pool: pg.Pool): Promise<NodeSlot[]> {
  const { rows } = await pool.query<{
    slot: string;
    active: boolean;
    lag: string | null;
    retained: string | null;
    wal_status: string | null;
    inactive_since: string | null;
  }>(
    `SELECT slot_name AS slot, active,
            pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint::text AS lag,
            pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint::text AS retained,
            wal_status,
            to_jsonb(s) ->> 'inactive_since' AS inactive_since
     FROM pg_replication_slots s
     WHERE database = current_database() AND slot_name LIKE 'ledgerline\\_%'
     ORDER BY slot_name`,
  );
  // Read models' slots only: the webhook producer's (`ledgerline_webhooks_<oid>`) is not a node's.
  return rows
    .filter((r) => SLOT.test(r.slot))
    .map((r) => ({
      slot: r.slot,
      node: SLOT.exec(r.slot)?.[1] ?? null,
      active: r.active,
      lagBytes: BigInt(r.lag ?? '0'),
      retainedBytes: BigInt(r.retained ?? '0'),
      walStatus: r.wal_status,
      inactiveSince: r.inactive_since === null ? null : new Date(r.inactive_since),
    }));
}

/**
 * Drops the slots of a node gone for good (`name`: its node name, or one slot's name), so that
 * PostgreSQL stops keeping WAL for it; the node rebuilds its read model if it comes back.
 * Refused while a node streams from one of them. Returns the slots dropped (none: no such node).
 */
export async function dropNodeSlots(pool: pg.Pool, name: string): Promise<string[]> {
  const slots = (await listNodeSlots(pool)).filter((s) => s.node === name || s.slot === name);
  const active = slots.filter((s) => s.active);
  if (active.length > 0)
    throw new NodeInUseError(
      `${active.map((s) => s.slot).join(', ')} ${active.length === 1 ? 'is' : 'are'} in use by a running node: stop it first`,
    );
  for (const { slot } of slots)
    await pool.query(
      'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active',
      [slot],
    );
  return slots.map((s) => s.slot);
}

export class NodeInUseError extends Error {}
