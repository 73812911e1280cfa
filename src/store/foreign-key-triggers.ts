import type pg from 'pg';

/**
 * `SET LOCAL name = value` for the rest of the client's transaction, where the server allows
 * it; false, with the transaction as it was, where it does not (a setting that needs
 * superuser, or one that can no longer change in this session). `name` and `value` are
 * the caller's constants, never user input.
 */
export async function trySetLocal(
  client: pg.ClientBase,
  name: string,
  value: string,
): Promise<boolean> {
  await client.query('SAVEPOINT try_set_local');
  try {
    await client.query(`SET LOCAL ${name} = '${value}'`);
    await client.query('RELEASE SAVEPOINT try_set_local');
    return true;
  } catch {
    await client.query('ROLLBACK TO SAVEPOINT try_set_local');
    return false;
  }
}

/**
 * Turns the per-row foreign-key triggers off for the rest of the client's transaction
 * (`session_replication_role = replica`), for bulk statements whose references the caller
 * has made sure of. It needs superuser (the embedded store is one); elsewhere the triggers
 * stay on, only speed is lost, and false is returned. The sync's change-log triggers are
 * ENABLE ALWAYS and keep firing. Unique and CHECK constraints always apply.
 */
export function skipForeignKeyTriggers(client: pg.ClientBase): Promise<boolean> {
  return trySetLocal(client, 'session_replication_role', 'replica');
}

/** Turns them back on (a no-op where they were never off). */
export async function restoreForeignKeyTriggers(client: pg.ClientBase): Promise<void> {
  await client.query('SET LOCAL session_replication_role = origin');
}
