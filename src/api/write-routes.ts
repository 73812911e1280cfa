import type { FastifyReply } from 'fastify';
import type { Transaction } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../store/schema.ts';
import {
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyHeader,
  runIdempotent,
  type IdempotencyOptions,
} from './idempotency.ts';
import {
  CREATE_ERRORS,
  KEYED_CREATE_ERRORS,
  idParams,
  readInHandler,
  responses,
  UPDATE_ERRORS,
  type ErrorsByStatus,
} from './route-schema.ts';
import { singleResponse } from './schema-parts.ts';

/** What a create or a PATCH route says of itself in the document. */
interface WriteDoc<B extends z.ZodType, R extends z.ZodType> {
  summary: string;
  description: string;
  body: B;
  /** The record it answers. */
  record: R;
}

/**
 * A POST that creates one record under an Idempotency-Key (docs/contract.md, "Idempotency"):
 * its schema (the key's header, required or not, and its errors; the record answered 201) and
 * the run that reads the same key. `run` answers 201 with the record `insert` returns and
 * resolves to the reply, so a handler can return it.
 */
export function keyedCreate<B extends z.ZodType, R extends z.ZodType>(
  create: WriteDoc<B, R> & { keyRequired: boolean },
) {
  const { summary, description, body, record, keyRequired } = create;
  return {
    schema: {
      summary,
      description,
      responseHeaders: { 201: IDEMPOTENT_REPLAYED_HEADER },
      headers: idempotencyKeyHeader({ required: keyRequired }),
      body,
      response: responses(
        { 201: singleResponse(record) },
        keyRequired ? KEYED_CREATE_ERRORS : CREATE_ERRORS,
      ),
    },
    async run(
      options: Omit<IdempotencyOptions, 'required'>,
      insert: (trx: Transaction<Database>) => Promise<unknown>,
    ): Promise<FastifyReply> {
      await runIdempotent({ ...options, required: keyRequired }, async (trx) => ({
        status: 201,
        body: { data: await insert(trx) },
      }));
      return options.reply;
    },
  };
}

/**
 * The schema of a PATCH of one record by its id (runUpdate, src/api/write.ts). The body is read
 * in the handler: the record (404) and whether the caller may change it (403) come before the
 * body (422), whatever the body is.
 */
export function recordUpdateSchema<R extends z.ZodType>(
  update: WriteDoc<z.ZodType, R> & { errors?: ErrorsByStatus },
) {
  return {
    summary: update.summary,
    description: update.description,
    params: idParams,
    body: readInHandler(update.body),
    response: responses({ 200: singleResponse(update.record) }, update.errors ?? UPDATE_ERRORS),
  };
}
