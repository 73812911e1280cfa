import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Body = Record<string, any>;

/**
 * A search whose only filter is the search itself chooses its page from the search index's
 * postings, which carry each record's created_at and whether it is deleted (docs/search.md,
 * "Pages from the index"); with any other filter the matches are joined to the entity's table.
 * Both must page alike, also after soft deletes, restores and moved creation times reach the
 * read model through the sync.
 */
const W = 'd0000000-0000-4000-8000-000000000000';
const id = (kind: number, n: number) =>
  `d${kind}000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const OWNER = 'tt_test_PagesOwner01_abcdefghijklmnopqrstuvwxyz012345';
const MEMBER = 'tt_test_PagesMembr01_abcdefghijklmnopqrstuvwxyz012345';

const WORDS = ['Globex', 'Acme', 'Design', 'Studio', 'Labs', 'Globe'];
/** Names of two words from WORDS, so that searches match several records and rank them apart. */
const name = (n: number) => `${WORDS[n % WORDS.length]} ${WORDS[(n * 5 + 1) % WORDS.length]}`;
// Few distinct days: creation times tie often, so the id decides between them.
const created = (n: number) => `2026-0${1 + (n % 3)}-01T00:00:00Z`;

const snapshot = {
  version: 1,
  workspace: { id: W, name: 'Pages Studio', plan: 'agency', baseCurrency: 'EUR', timezone: 'UTC' },
  users: [
    { id: id(2, 1), name: 'Olga Owner' },
    { id: id(2, 2), name: 'Max Member' },
  ],
  members: [
    { userId: id(2, 1), role: 'OWNER' },
    { userId: id(2, 2), role: 'MEMBER' },
  ],
  tokens: [
    { token: OWNER, userId: id(2, 1), scopes: ['read'] },
    { token: MEMBER, userId: id(2, 2) },
  ],
  clients: Array.from({ length: 14 }, (_, i) => ({
    id: id(3, i + 1),
    name: name(i),
    notes: i % 4 === 0 ? 'Globex partner' : null,
    createdAt: created(i),
    ...(i % 5 === 2 ? { deletedAt: '2026-05-01T00:00:00Z' } : {}),
  })),
  projects: Array.from({ length: 12 }, (_, i) => ({
    id: id(4, i + 1),
    clientId: id(3, (i % 14) + 1),
    name: name(i + 3),
    createdAt: created(i + 1),
    memberIds: i % 3 === 0 ? [id(2, 2)] : [id(2, 1)],
    ...(i % 4 === 3 ? { deletedAt: '2026-05-01T00:00:00Z' } : {}),
  })),
  invoices: Array.from({ length: 12 }, (_, i) => ({
    id: id(8, i + 1),
    clientId: id(3, (i % 14) + 1),
    number: `INV-${String(i + 1).padStart(4, '0')}`,
    status: 'SENT',
    paymentStatus: 'unpaid',
    currency: 'EUR',
    subtotal: '10.00',
    total: '10.00',
    notes: name(i + 1),
    createdAt: created(i + 2),
    ...(i % 5 === 4 ? { deletedAt: '2026-05-01T00:00:00Z' } : {}),
    lines: [{ id: id(9, i + 1), kind: 'OTHER', amount: '10.00', description: name(i + 7) }],
  })),
};

const ENTITIES = ['clients', 'projects', 'invoices'] as const;
const SEARCHES = ['globex', 'gl', 'design studio', 'acme', 'lab', 'globe'];
const SORTS = ['', 'createdAt', '-createdAt', 'id', '-id', 'relevance'];
// A filter every record passes, which sends the search through the join with the table.
const JOINED = 'createdAtFrom=2000-01-01';

describe('search pages chosen from the index', () => {
  let h: Harness;
  let duck: DuckDBConnection;

  beforeAll(async () => {
    // Some cases write the index itself, behind the sync: no answer is kept.
    h = await createHarness({
      live: true,
      rateLimit: { requests: 1e9 },
      keepAnswers: false,
    });
    await h.importObject(snapshot);
    await h.sync();
    duck = await h.readModel.connect();
  });
  afterAll(async () => {
    duck.closeSync();
    await h.close();
  });

  const get = async (path: string, token = OWNER) => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1/${path}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    return res.json<Body>();
  };

  /** The ids of every page, two records a page, following the cursors. */
  const allPages = async (entity: string, query: string, token = OWNER) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const body = await get(`${entity}?${query}&limit=2${after}`, token);
      seen.push(...(body.data as Body[]).map((r) => r.id as string));
      cursor = body.pagination.nextCursor as string | null;
    } while (cursor);
    return seen;
  };

  /** Every search and sort pages alike from the index and through the join; returns how many found anything. */
  const expectSamePages = async () => {
    let found = 0;
    for (const entity of ENTITIES)
      for (const search of SEARCHES)
        for (const sort of SORTS) {
          const query = `search=${encodeURIComponent(search)}${sort ? `&sort=${sort}` : ''}`;
          const fromIndex = await allPages(entity, query);
          expect(fromIndex, `${entity}?${query}`).toEqual(
            await allPages(entity, `${query}&${JOINED}`),
          );
          if (fromIndex.length > 0) found++;
        }
    return found;
  };

  const names = async (entity: string, query: string) =>
    ((await get(`${entity}?${query}&limit=100`)).data as Body[]).map((r) => r.id as string);

  it('pages alike from the index and through the join, for every sort', async () => {
    // Most searches find something, in each entity.
    expect(await expectSamePages()).toBeGreaterThan(70);
  });

  it('reads the page from the index: postings marked deleted hide a record the table still has', async () => {
    const globex = id(3, 1); // "Globex Acme"
    expect(await names('clients', 'search=globex')).toContain(globex);
    await duck.run(`UPDATE search_postings SET live = false WHERE record_id = '${globex}'`);
    try {
      expect(await names('clients', 'search=globex')).not.toContain(globex);
      expect(await names('clients', `search=globex&${JOINED}`)).toContain(globex);
    } finally {
      await duck.run(`UPDATE search_postings SET live = true WHERE record_id = '${globex}'`);
    }
  });

  it('follows soft deletes, restores and new creation times through the sync', async () => {
    const deleted = id(3, 1); // live until now
    const restored = id(3, 3); // "Design Studio", deleted in the snapshot
    const moved = id(3, 7); // "Acme Globe"
    expect(await names('clients', 'search=design')).not.toContain(restored);
    await h.pool.query('UPDATE clients SET deleted_at = now() WHERE id = $1', [deleted]);
    await h.pool.query('UPDATE clients SET deleted_at = NULL WHERE id = $1', [restored]);
    await h.pool.query("UPDATE clients SET created_at = '2027-01-01T00:00:00Z' WHERE id = $1", [
      moved,
    ]);
    await h.pool.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [id(4, 1)]);
    await h.pool.query('UPDATE invoices SET deleted_at = NULL WHERE id = $1', [id(8, 5)]);
    await h.sync();

    expect(await names('clients', 'search=globex')).not.toContain(deleted);
    expect(await names('clients', 'search=design')).toContain(restored);
    expect((await names('clients', 'search=acme'))[0]).toBe(moved);
    expect(await names('projects', 'search=globex')).not.toContain(id(4, 1));
    expect(await names('invoices', `search=${encodeURIComponent(name(5))}`)).toContain(id(8, 5));
    expect(await expectSamePages()).toBeGreaterThan(70);
  });

  it("a Member's project search keeps to the projects granted", async () => {
    const granted = new Set([id(4, 1), id(4, 4), id(4, 7), id(4, 10)]);
    for (const search of SEARCHES) {
      const found = await allPages('projects', `search=${encodeURIComponent(search)}`, MEMBER);
      for (const project of found) expect(granted.has(project), `${search}: ${project}`).toBe(true);
    }
    // Some granted project is found at all.
    expect(await allPages('projects', 'search=globe', MEMBER)).not.toEqual([]);
  });
});
