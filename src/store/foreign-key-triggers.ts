import type pg from 'pg';

/**
 * Turns the per-row foreign-key triggers off for the rest of the client's transaction
 * (`session_replication_role = replica`), for bulk statements whose references the caller
 * has made sure of. It needs superuser (the embedded store is one); elsewhere the triggers
 * stay on, only speed is lost, and false is returned. The sync's change-log triggers are
 * ENABLE ALWAYS and keep firing. Unique and CHECK constraints always apply.
 */
export async function skipForeignKeyTriggers(client: pg.ClientBase): Promise<boolean> {
  await client.query('SAVEPOINT fk_triggers');
  try {
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query('RELEASE SAVEPOINT fk_triggers');
    return true;
  } catch {
    await client.query('ROLLBACK TO SAVEPOINT fk_triggers');
    return false;
  }
}

/** Turns them back on (a no-op where they were never off). */
export async function restoreForeignKeyTriggers(client: pg.ClientBase): Promise<void> {
  await client.query('SET LOCAL session_replication_role = origin');
}
