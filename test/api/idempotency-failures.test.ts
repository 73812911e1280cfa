import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { body, unique, useIdempotencyHarness } from '../support/idempotency-harness.ts';

// Idempotent creates when the write fails or runs twice at once: a failed write stores no key,
// so a retry with it runs again; of concurrent requests with one key exactly one writes, the
// others replay its answer or get 409. The server and its test-only routes, steered to fail:
// test/support/idempotency-harness.ts.

describe('idempotent creates (docs/contract.md, "Idempotency")', () => {
  const harness = useIdempotencyHarness();
  const { steer, send, clientsNamed, keyRows } = harness;

  /** Polls until a session of this test's database is blocked on a lock (the duplicate's claim). */
  async function waitUntilASessionWaitsForALock(): Promise<void> {
    for (;;) {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(harness.h.db);
      if (rows[0]!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

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
});
