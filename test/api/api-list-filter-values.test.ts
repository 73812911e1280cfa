import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type Body } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

/**
 * A multi-value filter takes at most 25 values, counted as given: a value repeated counts each
 * time (docs/api.md, Lists). Every multi-value filter of every list is read from the document
 * the server serves (a query parameter of type array), so a filter added later is covered.
 */

interface ArrayFilter {
  path: string;
  name: string;
  /** A value the filter accepts. */
  value: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is walked by value
type Json = any;

/** A value an array parameter's item schema accepts. */
function acceptedValue(item: Json): string {
  if (Array.isArray(item.enum)) return String(item.enum[0]);
  if (item.format === 'uuid') return ids.client;
  if (item.pattern === '^[A-Za-z]{3}$') return 'EUR';
  return 'DE';
}

function arrayFilters(document: Json): ArrayFilter[] {
  const filters: ArrayFilter[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const parameter of (item.get?.parameters ?? []) as Json[]) {
      if (parameter.in !== 'query' || parameter.schema?.type !== 'array') continue;
      filters.push({ path, name: parameter.name, value: acceptedValue(parameter.schema.items) });
    }
  }
  return filters;
}

describe('repeated values of a multi-value filter', () => {
  let h: Harness;
  let filters: ArrayFilter[];

  beforeAll(async () => {
    h = await createHarness({ rateLimit: { requests: 100_000 } });
    await h.importObject(smallSnapshot());
    await h.sync();
    const document = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    filters = arrayFilters(document.json<Body>());
  });
  afterAll(() => h.close());

  const list = (filter: ArrayFilter, values: string[]) =>
    apiRequest(h.app, {
      method: 'GET',
      path: `${filter.path}?${values.map((v) => `${filter.name}=${encodeURIComponent(v)}`).join('&')}`,
      token: TOKENS.owner,
    });

  it('finds the multi-value filters of the lists', () => {
    expect(filters.map((f) => `${f.path} ${f.name}`)).toEqual(
      expect.arrayContaining([
        '/clients country',
        '/clients currency',
        '/projects status',
        '/projects clientId',
        '/invoices status',
        '/invoices paymentStatus',
      ]),
    );
  });

  it('answers 422 validation_failed naming the filter to 26 identical values, on every list', async () => {
    const answers = [];
    for (const filter of filters) {
      const res = await list(filter, Array<string>(26).fill(filter.value));
      answers.push({
        filter: `${filter.path} ${filter.name}`,
        status: res.status,
        code: res.body.error?.code as unknown,
        fields: Object.keys((res.body.error?.fields ?? {}) as object),
      });
    }
    expect(answers).toEqual(
      filters.map((f) => ({
        filter: `${f.path} ${f.name}`,
        status: 422,
        code: 'validation_failed',
        fields: [f.name],
      })),
    );
  });

  it('takes 25 values, repeated or not, and reads them as one', async () => {
    for (const filter of filters) {
      const repeated = await list(filter, Array<string>(25).fill(filter.value));
      expect(repeated.status, `${filter.path} ${filter.name}`).toBe(200);
      const once = await list(filter, [filter.value]);
      expect(repeated.body.data, `${filter.path} ${filter.name}`).toEqual(once.body.data);
    }
  });

  it('counts four statuses given 26 times in all as 26 values', async () => {
    const status = filters.find((f) => f.path === '/invoices' && f.name === 'status')!;
    const values = ['DRAFT', 'SENT', 'PAID', 'CANCELLED'];
    const given = Array.from({ length: 26 }, (_, i) => values[i % values.length]!);
    const res = await list(status, given);
    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual({ status: expect.stringContaining('25') });
  });
});
