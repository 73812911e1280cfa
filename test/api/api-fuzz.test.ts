import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { operationsOf, requestFor, type Json, type Operation } from '../support/fuzz-inputs.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';
import { writeLargest } from '../support/text-limits.ts';

/**
 * Every operation of the API, fuzzed from its own OpenAPI document: any query, path and body
 * (valid values, values of the wrong type and the values that once broke the engine: NUL
 * characters, year 0000 and impossible dates, prototype names as parameters, tampered
 * cursors), over a store also holding what only another tool writes there (the longest value
 * of every column, arrays with NULLs). No answer may be a 5xx; every error answer carries the envelope with a status and
 * code of docs/contract.md, "Errors"; and the read model still follows the store afterwards.
 */

/** The (status, error.code) pairs allowed by docs/contract.md, "Errors" and "Order of checks". */
const ERROR_CODES: Record<number, string[]> = {
  400: ['idempotency_key_required', 'malformed_json'],
  401: ['unauthenticated'],
  402: ['forbidden_plan'],
  403: ['forbidden_scope'],
  404: ['not_found'],
  409: ['idempotency_in_progress', 'entry_locked'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: [
    'validation_failed',
    'invalid_cursor',
    'invalid_query',
    'idempotency_key_reused',
    'duration_conflict',
  ],
};

describe('the API under fuzzed input (property)', () => {
  let h: Harness;
  let operations: Operation[];
  /** A cursor each list issued, to tamper with. */
  const cursors: string[] = [];

  beforeAll(async () => {
    h = await createHarness({ live: true, rateLimit: { requests: 1e9 } });
    await h.importObject(smallSnapshot());
    // Rows written straight into the store, past the API: the longest value of every bounded
    // column, full of parser breakers; and arrays holding NULLs, which the store refuses
    // (sql/postgres/0009_array_elements.sql): one it took would have to be answered too.
    await writeLargest(h.pool, 'fuzz');
    for (const write of [
      `UPDATE tasks SET tags = ARRAY['a', NULL] WHERE id = '${ids.task}'`,
      `UPDATE tasks SET assignee_ids = ARRAY[NULL, '${ids.owner}']::uuid[] WHERE id = '${ids.task}'`,
    ])
      await h.pool.query(write).catch(() => undefined);
    await h.sync();
    const document = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    operations = operationsOf(document.json());
    for (const op of operations) {
      if (op.method !== 'GET' || !op.query.some((p) => p.name === 'cursor')) continue;
      const res = await h.app.inject({
        method: 'GET',
        url: `/api/v1${op.path}?limit=1`,
        headers: { authorization: `Bearer ${TOKENS.owner}` },
      });
      const next = res.json<Json>().nextCursor;
      if (typeof next === 'string') cursors.push(next);
    }
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers no 5xx, and every error in the envelope with a status and code of docs/contract.md, "Errors"', async () => {
    // Writes weigh more: they are what can reach the store and the sync.
    const anyRequest = fc
      .oneof(
        ...operations.map((op) => ({
          weight: op.method === 'GET' ? 1 : 3,
          arbitrary: fc.constant(op),
        })),
      )
      .chain((op) => requestFor(op, cursors));
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(anyRequest, async (request) => {
        const res = await h.app.inject({
          method: request.method,
          url: request.url,
          headers: { authorization: `Bearer ${request.token}`, ...request.headers },
          ...(request.payload === undefined ? {} : { payload: request.payload }),
        });
        const where = `${request.method} ${request.url} ${request.payload ?? ''} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        const key = `${request.method} ${request.url.split('?')[0]!.replace(/[0-9a-f-]{36}/, '{id}')} ${res.statusCode}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        expect(res.statusCode, where).toBeLessThan(500);
        expect(res.headers['x-request-id'], where).toBeTruthy();
        if (res.statusCode < 400) return;
        const error = res.json<Json>().error;
        expect(error, where).toBeTypeOf('object');
        expect(ERROR_CODES[res.statusCode], where).toContain(error.code);
        expect(error.message, where).toBeTypeOf('string');
        expect(error.requestId, where).toBe(res.headers['x-request-id']);
      }),
      { numRuns: 600 },
    );
    // What the runs reached, for a reader of the log: each operation's answers by status.
    console.log(
      [...seen]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join('\n'),
    );
    // The fuzzing must get past validation: writes of several kinds succeeded among the runs
    // (each kind's share is random; at these weights three kinds or more always are).
    const written = new Set(
      [...seen.keys()]
        .filter((k) => / 20[01]$/.test(k) && !k.startsWith('GET'))
        .map((k) => k.split(' ')[1]!.split('/')[3]),
    );
    expect([...written].length, [...written].join()).toBeGreaterThanOrEqual(3);
  }, 600_000);

  it('leaves a read model that still follows the store', async () => {
    // A write after the fuzzing must still reach the read model, and every table match.
    const res = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/clients/${ids.client}`,
      headers: { authorization: `Bearer ${TOKENS.owner}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'After the fuzz, "quoted", 𝄞' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    await h.sync();
    const duck = await h.readModel.connect();
    try {
      const { store, readModel } = await snapshotBoth(h.pool, duck);
      expect(readModel).toEqual(store);
    } finally {
      duck.closeSync();
    }
  }, 120_000);
});
