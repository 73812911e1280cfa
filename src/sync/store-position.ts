import type pg from 'pg';
import { parseLsn, type Lsn } from './lsn.ts';

/**
 * The store's position now: the end of the WAL inserted so far, which lies past the commit
 * record of every transaction committed before the call (asynchronous commits too).
 */
export async function storeLsn(db: pg.Pool | pg.PoolClient): Promise<Lsn> {
  const result = await db.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
  return parseLsn(result.rows[0]!.lsn);
}
