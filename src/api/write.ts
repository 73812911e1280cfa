import type { FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import { answerMismatch } from './answer-check.ts';
import type { RouteContext } from './route-context.ts';
import { notFound } from './errors.ts';
import type { Database } from '../store/schema.ts';

/**
 * A write's answer as it is sent: `body` as JSON text, checked against the schema the route
 * declares for `status`. Every write calls it inside its transaction, before COMMIT, so that an
 * answer that cannot be built, written or checked throws and rolls the write back: a write that
 * answers 500 never commits (docs/api.md, "Data positions: what a write guarantees"). It runs in
 * production too, unlike the tests' check of every answer (src/http/response-check.ts): a write
 * answers one record, which zod checks in microseconds (about 13 µs for a task).
 */
export function writeAnswer(request: FastifyRequest, status: number, body: unknown): string {
  const payload = JSON.stringify(body);
  const problem = answerMismatch(request, status, payload);
  if (problem !== undefined)
    throw new Error(
      `${request.method} ${request.routeOptions.url} answers what its schema refuses: ${problem}`,
    );
  return payload;
}

/**
 * Runs a write in one PostgreSQL transaction and answers 200 with what `write` returns: the
 * record as stored, which `write` builds inside the transaction and writeAnswer checks before
 * the COMMIT. A thrown error rolls it all back. The answer carries the commit's data position,
 * and its token's next read waits for it (src/http/data-position.ts).
 */
export async function runWrite<B>(
  context: RouteContext,
  request: FastifyRequest,
  write: (trx: Transaction<Database>) => Promise<B>,
): Promise<B> {
  return context.db.transaction().execute(async (trx) => {
    const body = await write(trx);
    writeAnswer(request, 200, body);
    return body;
  });
}

/** The steps of a PATCH of one record; see runUpdate. */
export interface UpdateSteps<R, I, B> {
  /** The record, locked for the write; undefined when missing, deleted or another workspace's. */
  find(trx: Transaction<Database>): Promise<R | undefined>;
  /** Throws 403 when the caller may not change this record. */
  allow?(record: R): void;
  /** Reads the body, or throws 422. */
  parse(): I;
  /** Writes the change and returns the answer: the record as stored, built from its row. */
  write(trx: Transaction<Database>, record: R, input: I): Promise<B>;
}

/**
 * A PATCH of one record, its checks in the order of docs/decisions.md (Writes, "Order of a
 * PATCH"): the record (404, whatever the body), then whether the caller may change it (403),
 * then the body (422), then the write. One transaction, with the record locked from the start
 * and the answer checked before the COMMIT, as runWrite.
 */
export async function runUpdate<R, I, B>(
  context: RouteContext,
  request: FastifyRequest,
  steps: UpdateSteps<R, I, B>,
): Promise<B> {
  return runWrite(context, request, async (trx) => {
    const record = await steps.find(trx);
    if (record === undefined) throw notFound();
    steps.allow?.(record);
    return steps.write(trx, record, steps.parse());
  });
}
