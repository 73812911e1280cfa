import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { body, unique, useIdempotencyHarness } from '../support/idempotency-harness.ts';
import { TOKENS } from '../support/small-snapshot.ts';

// Idempotent creates: a repeated request with the same key runs the write once and replays its
// answer; what counts as the same request (method, path, body in canonical JSON, token); the
// key's form and where it is required. The server and its test-only routes:
// test/support/idempotency-harness.ts.

describe('idempotent creates (docs/contract.md, "Idempotency")', () => {
  const { send, clientsNamed, keyRows } = useIdempotencyHarness();

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
});
