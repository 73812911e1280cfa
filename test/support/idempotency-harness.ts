import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { z } from 'zod';
import { API_PREFIX, buildApp } from '../../src/http/app.ts';
import { validationFailed } from '../../src/api/errors.ts';
import { runIdempotent } from '../../src/api/idempotency.ts';
import type { Database } from '../../src/store/schema.ts';
import { createHarness, type Harness } from './harness.ts';
import { ids, smallSnapshot, TOKENS } from './small-snapshot.ts';

// The server of the idempotency tests (test/api/idempotency-*.test.ts). They drive
// runIdempotent through a test-only route that writes a real client row and can be steered to
// fail: POST (and PUT) /test-writes and /test-writes-other require the key,
// /test-writes-optional does not (as POST /clients).

type Outcome = 'create' | 'reject' | 'answer-409' | 'crash';

export interface Steering {
  /** What the next write does; taken once, then back to 'create'. */
  next: Outcome;
  /** Parks the next write after its INSERT until `release` resolves. */
  hold?: { entered: () => void; release: Promise<void> };
}

/** A body of the test route: the client's name and a note. */
export const body = (name: string) => JSON.stringify({ name, note: 'first' });

/** A client name no other test uses. */
export const unique = (what: string) => `${what} ${randomUUID()}`;

async function testWrite(steer: Steering, trx: Transaction<Database>, request: FastifyRequest) {
  const outcome = steer.next;
  steer.next = 'create';
  const hold = steer.hold;
  steer.hold = undefined;
  const { name } = request.body as { name: string };
  const { rows } = await sql<{ id: string; name: string; created_at: Date }>`
    INSERT INTO clients (id, workspace_id, name) VALUES (${randomUUID()}, ${ids.workspace}, ${name})
    RETURNING id, name, created_at`.execute(trx);
  const row = rows[0]!;
  // Widens the window in which concurrent duplicates meet the first one's claim.
  await sql`SELECT pg_sleep(0.02)`.execute(trx);
  if (hold) {
    hold.entered();
    await hold.release;
  }
  switch (outcome) {
    case 'create':
      return {
        status: 201,
        body: { data: { id: row.id, name: row.name, createdAt: row.created_at.toISOString() } },
      };
    case 'reject':
      throw validationFailed({ name: 'is already taken' });
    case 'answer-409':
      return { status: 409, body: { error: { code: 'conflict', message: 'Not now.' } } };
    case 'crash':
      throw new Error('INSERT INTO clients failed: relation "secret_table" does not exist');
  }
}

/** The small workspace and an app with the test-only routes, steered by `steer`. */
async function openIdempotencyServer(steer: Steering) {
  const h: Harness = await createHarness();
  await h.importObject(smallSnapshot());
  const app: FastifyInstance = await buildApp({
    db: h.db,
    readModel: h.readModel,
    status: h.status,
    tokenEnv: 'test',
    // Not what these tests are about: fifty requests at once must not meet the rate limit.
    rateLimit: { requests: 10_000, windowSeconds: 1 },
  });
  await app.register(
    async (api) => {
      const route = (required: boolean) => (request: FastifyRequest, reply: FastifyReply) =>
        runIdempotent(
          {
            db: h.db,
            request,
            reply,
            required,
            inProgressWaitMs: Number(request.headers['x-test-wait-ms'] ?? 100),
          },
          (trx) => testWrite(steer, trx, request),
        );
      // Every API route declares who may call it (these take any token) and what it answers,
      // which a write checks before its COMMIT.
      const any = {
        config: { access: {} },
        schema: {
          response: {
            201: z.object({
              data: z.object({ id: z.string(), name: z.string(), createdAt: z.string() }),
            }),
            409: z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
          },
        },
      };
      api.post('/test-writes', any, route(true));
      api.put('/test-writes', any, route(true));
      api.post('/test-writes-other', any, route(true));
      api.post('/test-writes-optional', any, route(false));
    },
    { prefix: API_PREFIX },
  );
  return { h, app };
}

/**
 * Opens the server for the suite it is called in (its beforeAll and afterAll), with the
 * helpers the tests share; they work once it is open. `steer` decides what the next write does.
 */
export function useIdempotencyHarness() {
  const steer: Steering = { next: 'create' };
  let opened: Awaited<ReturnType<typeof openIdempotencyServer>> | undefined;
  beforeAll(async () => {
    opened = await openIdempotencyServer(steer);
  });
  afterAll(async () => {
    await opened?.app.close();
    await opened?.h.close();
  });
  const server = () => {
    if (opened === undefined) throw new Error('the idempotency server is not open yet');
    return opened;
  };

  /** An async function, so the request starts at once even when nobody awaits it yet. */
  async function send(
    options: {
      path?: string;
      method?: 'POST' | 'PUT';
      key?: string;
      token?: string;
      waitMs?: number;
    },
    payload: string,
  ) {
    return server().app.inject({
      method: options.method ?? 'POST',
      url: `${API_PREFIX}/${options.path ?? 'test-writes'}`,
      headers: {
        authorization: `Bearer ${options.token ?? TOKENS.owner}`,
        'content-type': 'application/json',
        ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
        ...(options.waitMs === undefined ? {} : { 'x-test-wait-ms': String(options.waitMs) }),
      },
      payload,
    });
  }

  /** How many clients of this name are committed (read on another connection). */
  async function clientsNamed(name: string): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM clients WHERE name = ${name}`.execute(server().h.db);
    return rows[0]!.n;
  }
  /** How many stored rows the key has. */
  async function keyRows(key: string): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ${key}`.execute(server().h.db);
    return rows[0]!.n;
  }

  return {
    get h() {
      return server().h;
    },
    steer,
    send,
    clientsNamed,
    keyRows,
  };
}
