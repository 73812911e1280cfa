import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { purgeExpiredIdempotencyKeys } from '../../src/api/idempotency.ts';
import { body, unique, useIdempotencyHarness } from '../support/idempotency-harness.ts';

// Idempotent creates over time: the 24-hour window in which a key replays, the data position
// of an answer and of its replay, and the purge of the keys past the window. The server and
// its test-only routes: test/support/idempotency-harness.ts.

describe('idempotent creates (docs/contract.md, "Idempotency")', () => {
  const harness = useIdempotencyHarness();
  const { send, clientsNamed, keyRows } = harness;

  it('treats a key older than 24 hours as new, and replays the new response after that', async () => {
    const name = unique('expired');
    const key = randomUUID();
    const first = await send({ key }, body(name));
    await sql`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second'
      WHERE key = ${key}`.execute(harness.h.db);
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
      WHERE key = ${key}`.execute(harness.h.db);
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
      WHERE key = ${old}`.execute(harness.h.db);
    expect(await purgeExpiredIdempotencyKeys(harness.h.db)).toBe(1);
    expect(await keyRows(old)).toBe(0);
    expect(await keyRows(fresh)).toBe(1);
  });
});
