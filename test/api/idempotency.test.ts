import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { API_PREFIX, buildApp } from '../../src/http/app.ts';
import { validationFailed } from '../../src/api/errors.ts';
import { purgeExpiredIdempotencyKeys, runIdempotent } from '../../src/api/idempotency.ts';
import type { Database } from '../../src/store/schema.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

/**
 * The write endpoints come later, so these tests drive runIdempotent through a test-only
 * route that writes a real client row: POST (and PUT) /test-writes and /test-writes-other
 * require the key, /test-writes-optional does not (as POST /clients).
 */
type Outcome = 'create' | 'reject' | 'answer-409' | 'crash';

interface Steering {
  /** What the next write does; taken once, then back to 'create'. */
  next: Outcome;
  /** Parks the next write after its INSERT until `release` resolves. */
  hold?: { entered: () => void; release: Promise<void> };
}

describe('idempotent creates (docs/contract.md, "Idempotency")', () => {
  let h: Harness;
  let app: FastifyInstance;
  const steer: Steering = { next: 'create' };

  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    app = await buildApp({
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
            (trx) => testWrite(trx, request),
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
  });
  afterAll(async () => {
    await app.close();
    await h.close();
  });

  async function testWrite(trx: Transaction<Database>, request: FastifyRequest) {
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
    return app.inject({
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
  const body = (name: string) => JSON.stringify({ name, note: 'first' });

  async function clientsNamed(name: string): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM clients WHERE name = ${name}`.execute(h.db);
    return rows[0]!.n;
  }
  async function keyRows(key: string): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ${key}`.execute(h.db);
    return rows[0]!.n;
  }
  const unique = (what: string) => `${what} ${randomUUID()}`;

  /** Polls until a session of this test's database is blocked on a lock (the duplicate's claim). */
  async function waitUntilASessionWaitsForALock(): Promise<void> {
    for (;;) {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(h.db);
      if (rows[0]!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('runs the write once and replays the first response byte for byte, marked Idempotent-Replayed', async () => {
    const name = unique('replay');
    const key = randomUUID();
    const first = await send({ key }, body(name));
    const second = await send({ key }, body(name));
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await clientsNamed(name)).toBe(1);
  });

  it('takes a body with the same fields in another order and spacing as the same request', async () => {
    const name = unique('order');
    const key = randomUUID();
    const first = await send({ key }, JSON.stringify({ name, note: 'first' }));
    const second = await send({ key }, `{ "note": "first",\n  "name": ${JSON.stringify(name)} }`);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(await clientsNamed(name)).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with a different body', async () => {
    const name = unique('body');
    const key = randomUUID();
    expect((await send({ key }, body(name))).statusCode).toBe(201);
    const other = await send({ key }, JSON.stringify({ name, note: 'second' }));
    expect(other.statusCode).toBe(422);
    expect(other.json().error).toMatchObject({
      code: 'idempotency_key_reused',
      requestId: other.headers['x-request-id'],
    });
    expect(await clientsNamed(name)).toBe(1);
  });

  it('tells a number from an object shaped like its parsed form', async () => {
    const name = unique('number');
    const key = randomUUID();
    const number = `{"name": ${JSON.stringify(name)}, "amount": 150.10}`;
    expect((await send({ key }, number)).statusCode).toBe(201);
    const lookalike = JSON.stringify({ name, amount: { text: '150.10' } });
    expect((await send({ key }, lookalike)).json().error.code).toBe('idempotency_key_reused');
    expect((await send({ key }, number)).headers['idempotent-replayed']).toBe('true');
  });

  it('answers 422 idempotency_key_reused for the same key and body on a different path', async () => {
    const name = unique('path');
    const key = randomUUID();
    expect((await send({ key }, body(name))).statusCode).toBe(201);
    const other = await send({ key, path: 'test-writes-other' }, body(name));
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('idempotency_key_reused');
    expect(await clientsNamed(name)).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key, path and body with another method', async () => {
    const name = unique('method');
    const key = randomUUID();
    expect((await send({ key }, body(name))).statusCode).toBe(201);
    const other = await send({ key, method: 'PUT' }, body(name));
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('idempotency_key_reused');
    expect(await clientsNamed(name)).toBe(1);
  });

  it('answers 400 idempotency_key_required without the header where the key is required', async () => {
    const name = unique('missing');
    const res = await send({}, body(name));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'idempotency_key_required',
      requestId: res.headers['x-request-id'],
    });
    expect(await clientsNamed(name)).toBe(0);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a space', 'two words'],
  ])('answers 422 validation_failed for a key that is %s', async (_case, key) => {
    const name = unique('malformed');
    const res = await send({ key }, body(name));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'validation_failed',
      fields: { 'Idempotency-Key': expect.any(String) },
    });
    expect(await clientsNamed(name)).toBe(0);
  });

  it('accepts a key of 255 visible characters', async () => {
    const key = `${randomUUID()}~!`.padEnd(255, 'x');
    expect((await send({ key }, body(unique('long')))).statusCode).toBe(201);
  });

  it('runs every time without a key where the key is optional, and replays with one', async () => {
    const name = unique('optional');
    const a = await send({ path: 'test-writes-optional' }, body(name));
    const b = await send({ path: 'test-writes-optional' }, body(name));
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await clientsNamed(name)).toBe(2);

    const key = randomUUID();
    const c = await send({ path: 'test-writes-optional', key }, body(name));
    const d = await send({ path: 'test-writes-optional', key }, body(name));
    expect(d.headers['idempotent-replayed']).toBe('true');
    expect(d.rawPayload.equals(c.rawPayload)).toBe(true);
    expect(await clientsNamed(name)).toBe(3);
  });

  it('stores nothing when the write fails with a 4xx, so a retry with the same key runs again', async () => {
    const name = unique('rejected');
    const key = randomUUID();
    steer.next = 'reject';
    const failed = await send({ key }, body(name));
    expect(failed.statusCode).toBe(422);
    expect(failed.json().error.code).toBe('validation_failed');
    expect(await clientsNamed(name)).toBe(0);
    expect(await keyRows(key)).toBe(0);

    const retry = await send({ key }, body(name));
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await clientsNamed(name)).toBe(1);
    expect(await keyRows(key)).toBe(1);
  });

  it('stores nothing when the write answers a non-2xx itself', async () => {
    const name = unique('answered');
    const key = randomUUID();
    steer.next = 'answer-409';
    const failed = await send({ key }, body(name));
    expect(failed.statusCode).toBe(409);
    expect(failed.json()).toEqual({ error: { code: 'conflict', message: 'Not now.' } });
    expect(await clientsNamed(name)).toBe(0);
    expect(await keyRows(key)).toBe(0);
    expect((await send({ key }, body(name))).statusCode).toBe(201);
  });

  it('stores nothing when the write throws: 500 without internals, and a retry runs again', async () => {
    const name = unique('crashed');
    const key = randomUUID();
    steer.next = 'crash';
    const failed = await send({ key }, body(name));
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('internal_error');
    expect(failed.body).not.toMatch(/secret_table|INSERT|at /);
    expect(await clientsNamed(name)).toBe(0);
    expect(await keyRows(key)).toBe(0);

    const retry = await send({ key }, body(name));
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await clientsNamed(name)).toBe(1);
  });

  it('lets exactly one of 50 concurrent requests with one key write; the others replay or get 409', async () => {
    const name = unique('concurrent');
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => send({ key }, body(name))),
    );
    const executed = responses.filter(
      (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined,
    );
    const replayed = responses.filter((r) => r.headers['idempotent-replayed'] === 'true');
    const inProgress = responses.filter((r) => r.statusCode === 409);
    expect(executed).toHaveLength(1);
    expect(replayed.length + inProgress.length).toBe(49);
    for (const r of replayed) {
      expect(r.statusCode).toBe(201);
      expect(r.rawPayload.equals(executed[0]!.rawPayload)).toBe(true);
    }
    for (const r of inProgress) expect(r.json().error.code).toBe('idempotency_in_progress');
    expect(await clientsNamed(name)).toBe(1);
    expect(await keyRows(key)).toBe(1);
  });

  it('answers 409 idempotency_in_progress while the first request is still running, then replays', async () => {
    const name = unique('in progress');
    const key = randomUUID();
    let entered!: () => void;
    let release!: () => void;
    const running = new Promise<void>((resolve) => (entered = resolve));
    steer.hold = { entered, release: new Promise<void>((resolve) => (release = resolve)) };
    const first = send({ key }, body(name));
    await running;

    const duplicate = await send({ key }, body(name));
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().error).toMatchObject({
      code: 'idempotency_in_progress',
      requestId: duplicate.headers['x-request-id'],
    });

    release();
    const done = await first;
    expect(done.statusCode).toBe(201);
    const replay = await send({ key }, body(name));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.rawPayload.equals(done.rawPayload)).toBe(true);
    expect(await clientsNamed(name)).toBe(1);
  });

  it('lets a duplicate run itself when the first request with the key fails while it waits', async () => {
    const name = unique('waits');
    const key = randomUUID();
    let entered!: () => void;
    let release!: () => void;
    const running = new Promise<void>((resolve) => (entered = resolve));
    steer.next = 'reject';
    steer.hold = { entered, release: new Promise<void>((resolve) => (release = resolve)) };
    const first = send({ key }, body(name));
    await running;
    const duplicate = send({ key, waitMs: 60_000 }, body(name));
    await waitUntilASessionWaitsForALock();
    release();
    expect((await first).statusCode).toBe(422);
    const second = await duplicate;
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(await clientsNamed(name)).toBe(1);
  });

  it('keeps keys per token: another token of the same workspace runs the same key on its own', async () => {
    const name = unique('per token');
    const key = randomUUID();
    const owner = await send({ key }, body(name));
    const manager = await send({ key, token: TOKENS.manager }, body(name));
    expect(owner.statusCode).toBe(201);
    expect(manager.statusCode).toBe(201);
    expect(manager.headers['idempotent-replayed']).toBeUndefined();
    expect(manager.json().data.id).not.toBe(owner.json().data.id);
    expect(await clientsNamed(name)).toBe(2);
    expect(await keyRows(key)).toBe(2);
  });

  it('treats a key older than 24 hours as new, and replays the new response after that', async () => {
    const name = unique('expired');
    const key = randomUUID();
    const first = await send({ key }, body(name));
    await sql`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second'
      WHERE key = ${key}`.execute(h.db);
    const again = await send({ key }, body(name));
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.json().data.id).not.toBe(first.json().data.id);
    expect(await clientsNamed(name)).toBe(2);

    const replay = await send({ key }, body(name));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.rawPayload.equals(again.rawPayload)).toBe(true);
  });

  it('still replays a key just inside the 24 hours', async () => {
    const name = unique('inside');
    const key = randomUUID();
    await send({ key }, body(name));
    await sql`UPDATE idempotency_keys SET created_at = now() - interval '23 hours 59 minutes'
      WHERE key = ${key}`.execute(h.db);
    expect((await send({ key }, body(name))).headers['idempotent-replayed']).toBe('true');
    expect(await clientsNamed(name)).toBe(1);
  });

  it('answers a 201 once the write has committed, with its data position', async () => {
    const name = unique('after commit');
    const res = await send({ key: randomUUID() }, body(name));
    expect(res.statusCode).toBe(201);
    // Another connection: only a committed row counts.
    expect(await clientsNamed(name)).toBe(1);
    expect(res.headers['x-data-position']).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
  });

  it('gives a replay a data position too, at or past the first answer’s', async () => {
    const name = unique('replay position');
    const key = randomUUID();
    const first = await send({ key }, body(name));
    const replay = await send({ key }, body(name));
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const lsn = (text: unknown) => {
      const [high, low] = String(text).split('/');
      return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
    };
    expect(lsn(replay.headers['x-data-position'])).toBeGreaterThanOrEqual(
      lsn(first.headers['x-data-position']),
    );
  });

  it('purges only rows past the replay window', async () => {
    const fresh = randomUUID();
    const old = randomUUID();
    await send({ key: fresh }, body(unique('fresh')));
    await send({ key: old }, body(unique('old')));
    await sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours'
      WHERE key = ${old}`.execute(h.db);
    expect(await purgeExpiredIdempotencyKeys(h.db)).toBe(1);
    expect(await keyRows(old)).toBe(0);
    expect(await keyRows(fresh)).toBe(1);
  });
});
