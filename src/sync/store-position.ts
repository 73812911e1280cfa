import type pg from 'pg';
import { readStorePosition } from '../store/store-position.ts';
import { parseLsn, type Lsn } from './lsn.ts';

/**
 * The store's position now, as a number: past the commit record of every transaction
 * committed before the call (asynchronous commits too).
 */
export async function storeLsn(db: pg.Pool | pg.PoolClient): Promise<Lsn> {
  return parseLsn(await readStorePosition(db));
}
