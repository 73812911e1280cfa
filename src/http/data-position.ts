import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { positionNotReached, validationFailed } from '../api/errors.ts';
import type { Database } from '../store/schema.ts';
import { readStorePosition } from '../store/store-position.ts';
import { formatLsn, parseLsn, ZERO_LSN, type Lsn } from '../sync/lsn.ts';

// Writes answer once PostgreSQL has committed them; the read model follows a moment later.
// What keeps a client's reads consistent with its writes is a data position (docs/api.md,
// "Data positions"): a write answers the store's position after its commit, a GET waits until
// the read model has passed the position it needs, and every answer says where it stands.

export const DATA_POSITION_HEADER = 'X-Data-Position';

/** What the app needs of the sync to hold a read until the read model shows a write. */
export interface ReadModelPosition {
  /**
   * The read model's position (`X/X`): every change committed at or before it is visible.
   * Undefined before the first load.
   */
  readonly position: string | undefined;
  /** Resolves true once the read model has passed `position`, false after `timeoutMs`. */
  waitFor(position: string, timeoutMs: number): Promise<boolean>;
}

export interface DataPositionOptions {
  db: Kysely<Database>;
  /** The sync the read model follows the store with; without one, nothing waits. */
  sync?: ReadModelPosition;
  /** How long a GET waits for its position before 503 (ms). */
  waitMs: number;
  /** Told how long each GET that waited for a position waited, in seconds (/metrics). */
  onWait?: (seconds: number) => void;
  /** Tokens whose last write position is remembered (the least recently used are forgotten). */
  rememberedTokens?: number;
}

/** `16/B374D848`: two hexadecimal halves of up to 8 digits, as PostgreSQL writes an LSN. */
const POSITION_FORM = /^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/;

/** The schema of the header, for the OpenAPI document. */
export const DATA_POSITION_SCHEMA = {
  type: 'string',
  pattern: POSITION_FORM.source,
  examples: ['0/1A2B3C4D'],
} as const;

/**
 * Registers the data positions:
 * - a write (POST, PATCH, DELETE) that answers 2xx carries the store's position after its
 *   commit, and the server remembers it as its token's last write;
 * - a GET of the read model first waits until the read model has passed its token's last write
 *   and the position its `X-Data-Position` names (whichever token's it was), at most `waitMs`,
 *   then 503 `read_model_unavailable`; a malformed position, or one beyond the store's
 *   current position (which no read model could reach), is 422 `validation_failed`;
 * - every GET answer carries the read model's position beside `X-Data-As-Of`.
 * The wait runs after the input is validated and before the handler, which reads the read
 * model (a record's 404 is only known once it shows the writes it waits for).
 */
export function registerDataPositions(app: FastifyInstance, options: DataPositionOptions): void {
  const { db, sync, waitMs } = options;
  // Per token, the position of its last write while the read model may not have passed it.
  const lastWrites = new LRUCache<string, Lsn>({ max: options.rememberedTokens ?? 100_000 });

  app.addHook('preHandler', async (request) => {
    if (request.method !== 'GET' || !isTokenRoute(request)) return;
    const sent = readPositionHeader(request);
    if (request.routeOptions.config.fromStore || sync === undefined) return;
    // No position yet (a server that has just started, before its sync has read where the read
    // model stands): nothing is known to be passed, so a position waits like any other.
    const current = sync.position === undefined ? ZERO_LSN : parseLsn(sync.position);
    const token = request.caller.tokenPrefix;
    const own = lastWrites.get(token);
    // Passed for good: forgotten. At `current` exactly, only the sync can tell (a change-log
    // position is passed strictly; docs/sync.md), so waitFor is asked.
    if (own !== undefined && own < current) lastWrites.delete(token);
    if (sent !== undefined && sent > current && sent > parseLsn(await readStorePosition(db)))
      throw validationFailed({
        [DATA_POSITION_HEADER]:
          'lies beyond the store’s current position: send a position an answer of this API gave',
      });
    const needed = [own, sent].reduce<Lsn | undefined>(
      (max, lsn) =>
        lsn !== undefined && lsn >= current && (max === undefined || lsn > max) ? lsn : max,
      undefined,
    );
    if (needed === undefined) return;
    const asked = performance.now();
    const reached = await sync.waitFor(formatLsn(needed), waitMs);
    options.onWait?.((performance.now() - asked) / 1000);
    if (!reached) throw positionNotReached(waitMs);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!isTokenRoute(request)) return payload;
    if (request.method === 'GET') {
      if (sync?.position !== undefined) void reply.header(DATA_POSITION_HEADER, sync.position);
    } else if (reply.statusCode >= 200 && reply.statusCode < 300) {
      await answerWritePosition(request, reply);
    }
    return payload;
  });

  /**
   * The store's position after a write's commit (an idempotent replay's too: later than the
   * first commit, which is all a reader needs), remembered for its token.
   */
  async function answerWritePosition(request: FastifyRequest, reply: FastifyReply) {
    let position: string;
    try {
      position = await readStorePosition(db);
    } catch (error) {
      // The write has committed: answer it. Without a position its token's next read does not
      // wait (docs/api.md, "Data positions").
      request.log.warn({ err: error }, 'could not read the store position after a write');
      return;
    }
    const lsn = parseLsn(position);
    const token = request.caller.tokenPrefix;
    const before = lastWrites.get(token);
    if (before === undefined || lsn > before) lastWrites.set(token, lsn);
    void reply.header(DATA_POSITION_HEADER, position);
  }
}

/** A route of the API that a token calls (every one but the document and its page). */
function isTokenRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config?.access !== undefined;
}

/** The request's `X-Data-Position`, or 422 `validation_failed` when it is not a position. */
function readPositionHeader(request: FastifyRequest): Lsn | undefined {
  const value = request.headers['x-data-position'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !POSITION_FORM.test(value))
    throw validationFailed({
      [DATA_POSITION_HEADER]:
        'must be a position as this API’s X-Data-Position answers it, such as 0/1A2B3C4D',
    });
  return parseLsn(value);
}
