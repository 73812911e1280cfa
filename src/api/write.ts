import type { Transaction } from 'kysely';
import { z } from 'zod';
import type { RouteContext } from '../http/app.ts';
import { notFound } from '../http/errors.ts';
import type { Database } from '../store/schema.ts';

/**
 * Runs a write in one PostgreSQL transaction, then waits until the read model shows it
 * (decisions 1: the caller's next GET sees its write). A thrown error rolls it all back.
 */
export async function runWrite<T>(
  context: RouteContext,
  write: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const result = await context.db.transaction().execute(write);
  await context.readModelCaughtUp();
  return result;
}

/** A path id: not a UUID names no record, so it is the same 404 as a missing one. */
export function recordId(value: string): string {
  const id = z.uuid().safeParse(value);
  if (!id.success) throw notFound();
  return id.data;
}
