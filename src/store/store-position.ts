import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.ts';

/**
 * The store's position now: the end of the WAL inserted so far (`X/X`, PostgreSQL's LSN text).
 * Read after a commit has returned, it lies at or past that commit's record, also for an
 * asynchronous commit, so a read model that has passed it shows the commit
 * (docs/api.md, "Data positions").
 */
export async function readStorePosition(
  db: Kysely<Database> | pg.Pool | pg.PoolClient,
): Promise<string> {
  if ('query' in db) {
    const result = await db.query<{ lsn: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    return result.rows[0]!.lsn;
  }
  const { rows } = await sql<{
    lsn: string;
  }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(db);
  return rows[0]!.lsn;
}
