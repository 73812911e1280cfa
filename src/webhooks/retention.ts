import type pg from 'pg';

/** How long events and the attempt log are kept: replay reaches back this far. */
export const RETENTION_MS = 30 * 24 * 3600_000;

/**
 * Deletes the events older than `retentionMs` that no delivery waits for (their deliveries go
 * with them) and the attempts logged before then, a batch at a time so no statement holds
 * many locks for long. Any node may run it; running it twice at once deletes nothing twice.
 * Returns how many events went.
 */
export async function pruneWebhooks(
  pool: pg.Pool,
  { retentionMs = RETENTION_MS, batch = 5000 }: { retentionMs?: number; batch?: number } = {},
): Promise<number> {
  const before = `${retentionMs} milliseconds`;
  let events = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM webhook_events WHERE id IN (
         SELECT v.id FROM webhook_events v
         WHERE v.occurred_at < now() - $1::interval
           AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries d WHERE d.event_id = v.id AND d.state = 'pending')
         LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, batch],
    );
    events += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) break;
  }
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM webhook_attempts WHERE id IN (
         SELECT id FROM webhook_attempts WHERE attempted_at < now() - $1::interval
         LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, batch],
    );
    if ((rowCount ?? 0) < batch) break;
  }
  return events;
}
