import type { Transaction } from 'kysely';
import type { RouteContext } from './route-context.ts';
import { notFound } from './errors.ts';
import type { Database } from '../store/schema.ts';

/**
 * Runs a write in one PostgreSQL transaction; it answers once that has committed. A thrown
 * error rolls it all back. The answer carries the commit's data position, and its token's
 * next read waits for it (src/http/data-position.ts).
 */
export async function runWrite<T>(
  context: RouteContext,
  write: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return context.db.transaction().execute(write);
}

/** The steps of a PATCH of one record; see runUpdate. */
export interface UpdateSteps<R, I, T> {
  /** The record, locked for the write; undefined when missing, deleted or another workspace's. */
  find(trx: Transaction<Database>): Promise<R | undefined>;
  /** Throws 403 when the caller may not change this record. */
  allow?(record: R): void;
  /** Reads the body, or throws 422. */
  parse(): I;
  write(trx: Transaction<Database>, record: R, input: I): Promise<T>;
}

/**
 * A PATCH of one record, its checks in the order of decisions 2: the record (404, whatever
 * the body), then whether the caller may change it (403), then the body (422), then the
 * write. One transaction, with the record locked from the start, as runWrite.
 */
export async function runUpdate<R, I, T>(
  context: RouteContext,
  steps: UpdateSteps<R, I, T>,
): Promise<T> {
  return runWrite(context, async (trx) => {
    const record = await steps.find(trx);
    if (record === undefined) throw notFound();
    steps.allow?.(record);
    return steps.write(trx, record, steps.parse());
  });
}
