import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Body = Record<string, any>;

const clientId = (n: number) => `31000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Clients made for listing: known names, countries, currencies and creation times. */
function snapshotWithClients() {
  const snapshot = smallSnapshot();
  const extra = [
    { name: 'Acme Corp', country: 'DE', currency: 'EUR', billingEmail: 'ap@acme.test', day: 1 },
    { name: 'Zeta Labs', country: 'FR', currency: 'eur', billingEmail: null, day: 2 },
    { name: 'beta GmbH', country: 'DE', currency: 'JPY', billingEmail: '', day: 3 },
    { name: 'Ohne Land', country: null, currency: null, billingEmail: '  ', day: 3 },
    { name: 'José Müller & Söhne', country: 'DE', currency: 'EUR', billingEmail: null, day: 4 },
  ];
  snapshot.clients.push(
    ...(extra.map((c, i) => ({
      id: clientId(i + 1),
      name: c.name,
      billingCountry: c.country,
      currency: c.currency?.toUpperCase() ?? null,
      billingEmail: c.billingEmail,
      defaultRate: c.currency === 'JPY' ? '15000' : '99.125',
      createdAt: `2026-0${c.day}-15T10:00:00.123456Z`,
      updatedAt: `2026-0${c.day}-16T10:00:00Z`,
    })) as never[]),
  );
  return snapshot;
}

describe('GET /clients', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(snapshotWithClients());
    await h.sync();
  });
  afterAll(() => h.close());

  const get = async (query = '', token = TOKENS.owner) => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1/clients${query}`,
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.statusCode, body: res.json<Body>() };
  };
  const names = (body: Body) => (body.data as { name: string }[]).map((c) => c.name);

  it('lists the workspace clients newest first, as records with money at the currency scale', async () => {
    const { status, body } = await get();
    expect(status).toBe(200);
    expect(body.pagination).toEqual({ limit: 50, nextCursor: null });
    expect(names(body)).toHaveLength(6);
    const beta = body.data.find((c: { name: string }) => c.name === 'beta GmbH');
    expect(beta).toMatchObject({ currency: 'JPY', defaultRate: '15000', billingEmail: null });
    const acme = body.data.find((c: { name: string }) => c.name === 'Acme Corp');
    expect(acme).toMatchObject({
      id: clientId(1),
      orgId: ids.workspace,
      defaultRate: '99.125',
      requirePoNumber: false,
      createdAt: '2026-01-15T10:00:00.123Z',
      deletedAt: null,
    });
  });

  it('sorts by name case-insensitively, either way, with id as the tie-breaker', async () => {
    expect(names((await get('?sort=name')).body)).toEqual([
      'Acme Corp',
      'beta GmbH',
      'Globex',
      'José Müller & Söhne',
      'Ohne Land',
      'Zeta Labs',
    ]);
    expect(names((await get('?sort=-name')).body)[0]).toBe('Zeta Labs');
  });

  it('filters by repeated values (OR), case-insensitive currency, booleans and date ranges', async () => {
    expect(names((await get('?country=DE&country=FR&sort=name')).body)).toEqual([
      'Acme Corp',
      'beta GmbH',
      'José Müller & Söhne',
      'Zeta Labs',
    ]);
    expect(names((await get('?currency=eur&sort=name')).body)).toEqual([
      'Acme Corp',
      'José Müller & Söhne',
      'Zeta Labs',
    ]);
    // A billing email of spaces only is none.
    expect(names((await get('?hasBillingEmail=yes')).body)).toEqual(['Acme Corp']);
    expect(names((await get('?hasBillingEmail=false&sort=name')).body)).toContain('Ohne Land');
    expect(names((await get('?hasBillingEmail=0&sort=name')).body)).not.toContain('Acme Corp');
    // A plain date as upper bound covers its whole day; as lower bound it starts at midnight.
    expect(names((await get('?createdAtFrom=2026-02-15&createdAtTo=2026-02-15')).body)).toEqual([
      'Zeta Labs',
    ]);
    expect(
      names((await get('?createdAtFrom=2026-01-15T10:00:00.123457Z&createdAtTo=2026-03-01')).body),
    ).toEqual(['Zeta Labs']);
  });

  it('pages with a cursor until nextCursor is null, each client exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const { status, body }: { status: number; body: Body } = await get(
        `?limit=2&sort=name${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(status).toBe(200);
      seen.push(...names(body));
      cursor = body.pagination.nextCursor as string | null;
    } while (cursor);
    expect(seen).toEqual([
      'Acme Corp',
      'beta GmbH',
      'Globex',
      'José Müller & Söhne',
      'Ohne Land',
      'Zeta Labs',
    ]);
  });

  it('refuses a cursor used with another sort, filter or caller, or altered', async () => {
    const { body } = await get('?limit=1&sort=name');
    const cursor = encodeURIComponent(body.pagination.nextCursor as string);
    expect((await get(`?limit=1&sort=name&cursor=${cursor}`)).status).toBe(200);
    // Another page size is the same list.
    expect((await get(`?limit=3&sort=name&cursor=${cursor}`)).status).toBe(200);
    for (const query of [
      `?limit=1&sort=-name&cursor=${cursor}`,
      `?limit=1&sort=name&country=DE&cursor=${cursor}`,
      `?limit=1&sort=name&cursor=${cursor}x`,
      `?limit=1&sort=name&cursor=garbage`,
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    const other = await get(`?limit=1&sort=name&cursor=${cursor}`, TOKENS.manager);
    expect(other.body.error.code).toBe('invalid_cursor');
  });

  it('answers 422 validation_failed naming each bad parameter', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=1&limit=2', 'limit'],
      ['?sort=nope', 'sort'],
      ['?sort=relevance', 'sort'],
      ['?sort=-relevance&search=x', 'sort'],
      ['?hasBillingEmail=maybe', 'hasBillingEmail'],
      ['?createdAtFrom=2026-13-01', 'createdAtFrom'],
      [`?search=${'x'.repeat(201)}`, 'search'],
      [`?${Array.from({ length: 26 }, (_, i) => `country=C${i}`).join('&')}`, 'country'],
    ] as const) {
      const { status, body } = await get(query);
      expect(status, query).toBe(422);
      expect(body.error.code).toBe('validation_failed');
      expect(Object.keys(body.error.fields as object), query).toEqual([field]);
    }
    // Values count as given: a repeated one counts each time (api-list-filter-values.test.ts).
    expect((await get(`?${Array.from({ length: 30 }, () => 'country=DE').join('&')}`)).status).toBe(
      422,
    );
    // Unknown parameters are ignored on these lists (docs/contract.md, "Paging and sorting").
    expect((await get('?nonsense=1')).status).toBe(200);
  });

  it('searches: accents, typos, 1-2 letter prefixes of the name, every term, by relevance', async () => {
    const found = async (q: string) => names((await get(`?search=${encodeURIComponent(q)}`)).body);
    expect(await found('jose muller')).toEqual(['José Müller & Söhne']);
    // "sohne" is one edit from "ohne": a typo match, newest first by default.
    expect(await found('SOHNE')).toEqual(['José Müller & Söhne', 'Ohne Land']);
    expect(await found('acne')).toEqual(['Acme Corp']);
    expect(await found('gm')).toEqual(['beta GmbH']);
    expect(await found('zeta labs')).toEqual(['Zeta Labs']);
    expect(await found('zeta acme')).toEqual([]);
    // Exact beats prefix beats typo.
    const ranked = await get(`?search=${encodeURIComponent('acme')}&sort=relevance`);
    expect(names(ranked.body)[0]).toBe('Acme Corp');
    // A search pages like any list.
    const first = await get('?search=g&sort=relevance&limit=1');
    const cursor = encodeURIComponent(first.body.pagination.nextCursor as string);
    const second = await get(`?search=g&sort=relevance&limit=1&cursor=${cursor}`);
    expect([...names(first.body), ...names(second.body)].sort()).toEqual(['Globex', 'beta GmbH']);
    expect(second.body.pagination.nextCursor).toBeNull();
  });

  it('is for Managers and up: a Member gets 403', async () => {
    expect((await get('', TOKENS.member)).status).toBe(403);
    expect((await get('', TOKENS.manager)).status).toBe(200);
  });
});
