import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql, type Kysely, type Transaction } from 'kysely';
import { z } from 'zod';
import type { Database } from '../store/schema.ts';
import {
  idempotencyInProgress,
  idempotencyKeyRequired,
  idempotencyKeyReused,
  validationFailed,
} from './errors.ts';
import { readInHandler } from './route-schema.ts';
import { writeAnswer } from './write.ts';

/**
 * How long a stored response is replayed (docs/contract.md, "Idempotency"); after that the key
 * counts as new.
 */
export const REPLAY_WINDOW_HOURS = 24;
/** How long a request waits for a concurrent one holding the same key before answering 409. */
export const DEFAULT_IN_PROGRESS_WAIT_MS = 2_000;
/** Expired rows are deleted in bulk at most this often per process (after a stored write). */
const PURGE_EVERY_MS = 15 * 60_000;
/** Visible ASCII, no spaces: a UUID or a ULID fits, and so does any other opaque token. */
const KEY_FORM = /^[!-~]{1,255}$/;
const JSON_TYPE = 'application/json; charset=utf-8';
/** PostgreSQL's lock_not_available: `lock_timeout` ran out while waiting for a row. */
const LOCK_NOT_AVAILABLE = '55P03';

export interface IdempotencyOptions {
  db: Kysely<Database>;
  request: FastifyRequest;
  reply: FastifyReply;
  /** True for POST /expenses and /tasks (400 without a key); false for POST /clients. */
  required: boolean;
  /** How long to wait for a concurrent request with the same key before answering 409. */
  inProgressWaitMs?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The body as it was sent (lossless JSON), kept before validation replaces `body` with its
     * parsed value: two requests are the same write when these are alike.
     */
    receivedBody?: unknown;
  }
}

/** Keeps the body as sent; the app calls it before validation. */
export function keepReceivedBody(request: FastifyRequest): void {
  request.receivedBody = request.body;
}

/**
 * The Idempotency-Key header, for the document: runIdempotent reads it (its checks need the
 * store), so validation passes it through.
 */
export function idempotencyKeyHeader(options: { required: boolean }) {
  const key = z
    .string()
    .regex(KEY_FORM)
    .meta({ description: 'Replays the first response for 24 hours (docs/api.md, Writes).' });
  return readInHandler(z.object({ 'Idempotency-Key': options.required ? key : key.optional() }));
}

/** The header of a replayed response, for the document. */
export const IDEMPOTENT_REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    type: 'string',
    enum: ['true'],
    description: 'Present when this is the first response to the same key, replayed.',
  },
};

/** What a write answers: its status and body, the record as stored. */
export interface WriteResult {
  status: number;
  body: unknown;
}

/**
 * The request a key was first used for, and the key's owner (docs/contract.md, "Idempotency":
 * workspace and token).
 */
interface KeyClaim {
  workspace_id: string;
  token_prefix: string;
  key: string;
  method: string;
  path: string;
  body_sha256: Buffer;
}

interface Outcome {
  status: number;
  body: Buffer;
  replayed: boolean;
}

/**
 * Runs a create with idempotent replay (docs/contract.md, "Idempotency") and sends its response.
 *
 * With an `Idempotency-Key`, one PostgreSQL transaction claims the key (its row is inserted
 * first), runs `execute`, and stores the response it sends, byte for byte. A later request
 * with the same key, method, path and body gets that response again with
 * `Idempotent-Replayed: true`; the same key with anything else differing is 422
 * `idempotency_key_reused`. Only a 2xx commits, and only once its answer is written and checked
 * (writeAnswer, src/api/write.ts): a non-2xx result, or an error thrown by `execute` or by that
 * check, rolls back the write and the key together, so a retry runs again, and a process that
 * dies mid-request leaves no key behind. A concurrent request with the same key waits
 * on the first one's row: after its commit it replays, after its rollback it runs itself,
 * and after `inProgressWaitMs` it answers 409 `idempotency_in_progress`.
 *
 * A 2xx, first or replayed, answers once the write has committed; the app adds its data
 * position (src/http/data-position.ts), so whoever receives a 201 can read the write.
 *
 * Checks that depend on stored data belong inside `execute` (a replay skips them, and they
 * must see the transaction's snapshot); role and scope checks come before this call.
 * Resolves once the response has been sent, so a handler can return it:
 *
 * ```ts
 * app.post('/tasks', async (request, reply) => {
 *   requireAccess(request.caller, { scope: 'write' });
 *   const input = parseTaskInput(request.body); // 422 validation_failed
 *   return runIdempotent(
 *     { db: context.db, request, reply, required: true },
 *     async (trx) => ({ status: 201, body: { data: await insertTask(trx, request.caller, input) } }),
 *   );
 * });
 * ```
 */
export async function runIdempotent(
  options: IdempotencyOptions,
  execute: (trx: Transaction<Database>) => Promise<WriteResult>,
): Promise<void> {
  const { db, request, reply } = options;
  const key = readIdempotencyKey(request, options.required);
  const claim = key === undefined ? undefined : keyClaim(request, key);
  const waitMs = options.inProgressWaitMs ?? DEFAULT_IN_PROGRESS_WAIT_MS;
  const outcome = await executeOnce(db, request, claim, waitMs, execute);
  if (outcome.replayed) {
    request.log.info({ idempotencyKey: key }, 'idempotent replay');
    void reply.header('Idempotent-Replayed', 'true');
  }
  await reply.code(outcome.status).type(JSON_TYPE).send(outcome.body);
  if (claim !== undefined && !outcome.replayed && isSuccess(outcome.status)) {
    await purgeNowAndThen(db, request);
  }
}

/**
 * The `Idempotency-Key` header: absent is 400 `idempotency_key_required` where the key is
 * required and no key elsewhere; present, it must be 1..255 visible ASCII characters
 * (422 `validation_failed` otherwise). Compared exactly, case included.
 */
export function readIdempotencyKey(request: FastifyRequest, required: boolean): string | undefined {
  const value = request.headers['idempotency-key'];
  if (value === undefined) {
    if (required) throw idempotencyKeyRequired();
    return undefined;
  }
  if (typeof value !== 'string' || !KEY_FORM.test(value)) {
    throw validationFailed({
      'Idempotency-Key': 'must be 1 to 255 visible ASCII characters, such as a UUID or ULID',
    });
  }
  return value;
}

/**
 * SHA-256 of the body in canonical JSON: object keys sorted, no whitespace. The route sees
 * only the parsed body, so two bodies that parse alike (keys in another order, other
 * spacing) are the same request, and any difference the route could see is a different one.
 * No body hashes as the empty string. A body parser may hand over class instances (a number
 * kept as its literal, say): each is written with its class name in front, so it never
 * hashes like a plain object with the same fields.
 */
export function bodySha256(body: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(body)).digest();
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const members = Object.keys(object)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(object[name])}`);
    const prototype: unknown = Object.getPrototypeOf(object);
    const tag = prototype === Object.prototype || prototype === null ? '' : object.constructor.name;
    return `${tag}{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? '';
}

function keyClaim(request: FastifyRequest, key: string): KeyClaim {
  return {
    workspace_id: request.caller.workspaceId,
    token_prefix: request.caller.tokenPrefix,
    key,
    method: request.method,
    // As sent, query string included: a different query is a different request.
    path: request.url,
    body_sha256: bodySha256(request.receivedBody),
  };
}

/** Claims the key (when there is one), runs the write and stores its response, in one transaction. */
async function executeOnce(
  db: Kysely<Database>,
  request: FastifyRequest,
  claim: KeyClaim | undefined,
  waitMs: number,
  execute: (trx: Transaction<Database>) => Promise<WriteResult>,
): Promise<Outcome> {
  const trx = await db.startTransaction().execute();
  try {
    if (claim !== undefined) {
      const stored = await claimKey(trx, claim, waitMs);
      if (stored !== undefined) {
        await trx.rollback().execute();
        return stored;
      }
    }
    const result = await execute(trx);
    const body = Buffer.from(writeAnswer(request, result.status, result.body), 'utf8');
    if (!isSuccess(result.status)) {
      await trx.rollback().execute();
      return { status: result.status, body, replayed: false };
    }
    if (claim !== undefined) await storeResponse(trx, claim, result.status, body);
    await trx.commit().execute();
    return { status: result.status, body, replayed: false };
  } finally {
    if (!trx.isCommitted && !trx.isRolledBack) {
      // The connection is released even when the rollback fails; the error that got us here wins.
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
    }
  }
}

/**
 * Inserts the key's row, or takes over an expired one: undefined when this transaction now
 * owns the key. Otherwise a live row exists (committed, since the INSERT waited for any
 * transaction still holding it): its response to replay, or 422 when it was another request.
 */
async function claimKey(
  trx: Transaction<Database>,
  claim: KeyClaim,
  waitMs: number,
): Promise<Outcome | undefined> {
  // Bounds only the wait for a concurrent holder of this key; reset before the write runs.
  await sql`SELECT set_config('lock_timeout', ${`${waitMs}ms`}, true)`.execute(trx);
  let claimed: boolean;
  try {
    const row = await trx
      .insertInto('idempotency_keys')
      .values({ ...claim, response_status: null, response_body: null })
      .onConflict((conflict) =>
        conflict
          .columns(['workspace_id', 'token_prefix', 'key'])
          .doUpdateSet({
            method: claim.method,
            path: claim.path,
            body_sha256: claim.body_sha256,
            response_status: null,
            response_body: null,
            created_at: sql<Date>`now()`,
          })
          .where('idempotency_keys.created_at', '<=', expiredBefore()),
      )
      .returning('key')
      .executeTakeFirst();
    claimed = row !== undefined;
  } catch (error) {
    if (isLockTimeout(error)) throw idempotencyInProgress();
    throw error;
  }
  await sql`SET LOCAL lock_timeout TO DEFAULT`.execute(trx);
  if (claimed) return undefined;

  const stored = await trx
    .selectFrom('idempotency_keys')
    .select(['method', 'path', 'body_sha256', 'response_status', 'response_body'])
    .where('workspace_id', '=', claim.workspace_id)
    .where('token_prefix', '=', claim.token_prefix)
    .where('key', '=', claim.key)
    .executeTakeFirst();
  // Gone or without a response: only if it was deleted or rewritten in between. Retryable.
  if (!stored || stored.response_status === null || stored.response_body === null) {
    throw idempotencyInProgress();
  }
  if (
    stored.method !== claim.method ||
    stored.path !== claim.path ||
    !stored.body_sha256.equals(claim.body_sha256)
  ) {
    throw idempotencyKeyReused();
  }
  return { status: stored.response_status, body: stored.response_body, replayed: true };
}

async function storeResponse(
  trx: Transaction<Database>,
  claim: KeyClaim,
  status: number,
  body: Buffer,
): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ response_status: status, response_body: body })
    .where('workspace_id', '=', claim.workspace_id)
    .where('token_prefix', '=', claim.token_prefix)
    .where('key', '=', claim.key)
    .execute();
}

/** Deletes the rows past the replay window; returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<=', expiredBefore())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

let nextPurgeAt = 0;

/**
 * Expired rows are never replayed (a claim takes them over), so deleting them only keeps
 * the table small: at most every 15 minutes per process, after a response has been sent.
 */
async function purgeNowAndThen(db: Kysely<Database>, request: FastifyRequest): Promise<void> {
  const now = Date.now();
  if (now < nextPurgeAt) return;
  nextPurgeAt = now + PURGE_EVERY_MS;
  await purgeExpiredIdempotencyKeys(db).catch((error: unknown) =>
    request.log.warn({ err: error }, 'could not purge expired idempotency keys'),
  );
}

function expiredBefore() {
  return sql<Date>`now() - make_interval(hours => ${REPLAY_WINDOW_HOURS})`;
}

function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

function isLockTimeout(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === LOCK_NOT_AVAILABLE;
}
