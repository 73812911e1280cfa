import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The store's position now: the end of the WAL inserted so far (`X/X`, PostgreSQL's LSN text).
 * Read after a commit has returned, it lies at or past that commit's end, also for an
 * asynchronous commit, so a read model that has passed it shows the commit
 * (docs/api.md, "Data positions").
 */
export async function readStorePosition(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{
    lsn: string;
  }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(db);
  return rows[0]!.lsn;
}
