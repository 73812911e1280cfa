import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { TEMPLATE_DATABASE, withDatabase } from './global-setup.ts';

/**
 * A fresh, migrated PostgreSQL database for one test file, cloned from the template (or an
 * empty one with `migrated: false`, for tests of the migrations). Returns its URL; `drop()`
 * removes it.
 */
export async function createTestDatabase(
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = inject('pgUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const template = options.migrated === false ? 'template0' : TEMPLATE_DATABASE;
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(serverUrl, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        // A slot of the database blocks its drop; a stopped sync's walsender may still hold
        // its slot for a moment after the sync has stopped, so the slot is freed first.
        for (let attempt = 0; ; attempt++) {
          await c.query(
            `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
             WHERE database = $1 AND active_pid IS NOT NULL`,
            [name],
          );
          await c
            .query(
              `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
             WHERE database = $1 AND NOT active`,
              [name],
            )
            // Taken again between the look and the drop: the next round frees it.
            .catch(() => undefined);
          const left = await c.query('SELECT 1 FROM pg_replication_slots WHERE database = $1', [
            name,
          ]);
          if (left.rowCount === 0 || attempt >= 100) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Drops the replication slots of the test database that nobody streams from (those a stopped
 * sync left), so that the database can be dropped; returns how many it dropped.
 */
export async function dropIdleSlots(pool: pg.Pool): Promise<number> {
  const result = await pool.query(
    'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = current_database() AND NOT active',
  );
  return result.rowCount ?? 0;
}
