import type pg from 'pg';

/**
 * Which PostgreSQL database a read model was copied from: a read model of another store
 * must be rebuilt, not followed. The cluster's system identifier when the role may read it
 * (pg_control_system needs superuser or pg_monitor on most servers), and the database's
 * oid, which no restore or failover to another cluster keeps.
 */
export async function sourceIdentity(client: pg.Pool | pg.PoolClient): Promise<string> {
  const db = await client.query<{ id: string }>(
    'SELECT oid::text AS id FROM pg_database WHERE datname = current_database()',
  );
  const system = await client
    .query<{ id: string }>(
      "SELECT CASE WHEN has_function_privilege('pg_control_system()', 'execute') THEN (SELECT system_identifier::text FROM pg_control_system()) END AS id",
    )
    .then((r) => r.rows[0]?.id ?? null);
  return `${system ?? 'cluster'}/${db.rows[0]!.id}`;
}
