import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { searchQuery, type SearchEntity } from '../../src/search/search.ts';
import { createPool } from '../../src/store/database.ts';
import { fullSync } from '../../src/sync/full-sync.ts';
import { createTestDatabase } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

// Readable ids: the first block names the workspace (a, b, c), the last the record.
const W = 'a0000000-0000-4000-8000-000000000000';
const OTHER = 'b0000000-0000-4000-8000-000000000000';
const RANKING = 'c0000000-0000-4000-8000-000000000000';
const id = (ws: string, kind: number, n: number) =>
  `${ws.slice(0, 1)}${kind}000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const workspace = (wsId: string, name: string) => ({
  id: wsId,
  name,
  plan: 'agency',
  baseCurrency: 'EUR',
  timezone: 'UTC',
});
const client = (wsId: string, n: number, name: string, fields: object = {}) => ({
  id: id(wsId, 3, n),
  name,
  createdAt: `2026-01-${String(n).padStart(2, '0')}T00:00:00Z`,
  ...fields,
});
const line = (n: number, fields: object) => ({
  id: id(W, 9, n),
  kind: 'OTHER',
  amount: '10.00',
  ...fields,
});
const invoice = (n: number, clientN: number, number: string, fields: object = {}) => ({
  id: id(W, 8, n),
  clientId: id(W, 3, clientN),
  number,
  status: 'SENT',
  paymentStatus: 'unpaid',
  currency: 'EUR',
  subtotal: '10.00',
  total: '10.00',
  ...fields,
});

/** Three workspaces: the main one, another (isolation), and one for relevance order. */
const snapshots = [
  {
    version: 1,
    workspace: workspace(W, 'Search Studio'),
    users: [
      { id: id(W, 2, 1), name: 'Ada Lovelace' },
      { id: id(W, 2, 2), name: 'Grace Hopper' },
      { id: id(W, 2, 3), name: 'Björn Müller' },
    ],
    members: [1, 2, 3].map((n) => ({ userId: id(W, 2, n), role: n === 1 ? 'OWNER' : 'MEMBER' })),
    clients: [
      client(W, 1, 'José Ñandú Consulting', {
        contactName: 'Ana Smith',
        email: 'ana@acme.example',
        notes: 'ﬁne Ｆｕｌｌ service',
        billingCity: 'Düsseldorf',
      }),
      client(W, 2, 'Globex Corporation', {
        notes: 'Prefers invoices in English.',
        taxNumber: 'DE123456789',
      }),
      client(W, 3, 'Jose Smithson'),
      client(W, 4, 'Initech', { contactName: 'Globex liaison', billingPostalCode: '10115' }),
      client(W, 5, 'Globetrotter Ltd'),
      client(W, 6, 'Anderson Partners', { website: 'https://www.anderson.example' }),
      client(W, 7, 'Globex Deleted', { deletedAt: '2026-03-01T00:00:00Z' }),
    ],
    projects: [
      {
        id: id(W, 4, 1),
        clientId: id(W, 3, 2),
        name: 'Website relaunch',
        memberIds: [id(W, 2, 1), id(W, 2, 2)],
      },
      {
        id: id(W, 4, 2),
        clientId: id(W, 3, 1),
        name: 'Brand refresh',
        description: 'Logo and colours',
        memberIds: [id(W, 2, 3)],
      },
      { id: id(W, 4, 3), clientId: null, name: 'Internal tooling' },
    ],
    invoices: [
      invoice(1, 2, 'INV-0001', {
        lines: [
          line(1, {
            description: 'Development sprint',
            subtitle: 'Ada Lovelace',
            detail: '2026-10-01',
            groupLabel: 'Website relaunch',
          }),
        ],
      }),
      invoice(2, 1, 'INV-0002', {
        poNumber: 'PO-7788',
        notes: 'Thank you',
        lines: [line(2, { description: 'Design workshop' })],
      }),
      invoice(3, 3, 'INV-1002', { billToName: 'Smithson Holdings' }),
    ],
  },
  {
    version: 1,
    workspace: workspace(OTHER, 'Other Studio'),
    users: [{ id: id(OTHER, 2, 1), name: 'Olga Other' }],
    members: [{ userId: id(OTHER, 2, 1), role: 'OWNER' }],
    clients: [client(OTHER, 1, 'Umbrella'), client(OTHER, 2, 'Globex Corporation')],
  },
  {
    version: 1,
    workspace: workspace(RANKING, 'Ranking Studio'),
    users: [{ id: id(RANKING, 2, 1), name: 'Rita Rank' }],
    members: [{ userId: id(RANKING, 2, 1), role: 'OWNER' }],
    clients: [
      client(RANKING, 1, 'Bolt', { notes: 'nowa' }), // typo, other field: 2 * 2 + 1 = 5
      client(RANKING, 2, 'Nowa Studio'), // typo, primary: 4
      client(RANKING, 3, 'Atlas', { contactName: 'Novakova' }), // prefix, other: 3
      client(RANKING, 4, 'Novak Design'), // prefix, primary: 2
      client(RANKING, 5, 'Labs', { contactName: 'Nova Smith' }), // exact, other: 1
      client(RANKING, 6, 'Nova Labs'), // exact, primary: 0
      // Three words match: prefix, primary 2; exact, other 1; typo, other 5. The best counts.
      client(RANKING, 7, 'Novaline', { notes: 'nowa nova' }),
    ],
  },
];

describe('search (GET /clients, /projects, /invoices)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;

  /** Names (or numbers) of the matches, best first (ties: newest first, then id). */
  const search = async (entity: SearchEntity, text: string, workspaceId = W) => {
    const query = searchQuery(entity, workspaceId, text);
    if (!query) return null;
    const [table, label] = {
      client: ['clients', 'name'],
      project: ['projects', 'name'],
      invoice: ['invoices', 'number'],
    }[entity];
    const reader = await duck.runAndReadAll(
      `WITH search AS (${query.sql})
       SELECT t.${label}, s.rank FROM ${table} t JOIN search s ON s.record_id = t.id
       WHERE t.workspace_id = $workspace_id
       ORDER BY s.rank, t.created_at DESC, t.id DESC`,
      { ...query.params, workspace_id: workspaceId },
    );
    return reader.getRows().map(([name, rank]) => [name as string, rank as number] as const);
  };
  const names = async (entity: SearchEntity, text: string, workspaceId = W) =>
    (await search(entity, text, workspaceId))?.map(([name]) => name) ?? null;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    for (const snapshot of snapshots) await importObject(pool, snapshot);
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
    await fullSync(pool, readModel, DERIVED_TABLES);
  });
  afterAll(async () => {
    duck.closeSync();
    readModel.close();
    await pool.end();
    await db.drop();
  });

  it('ignores accents and case', async () => {
    const both = ['Jose Smithson', 'José Ñandú Consulting'];
    expect(await names('client', 'jose')).toEqual(both);
    expect(await names('client', 'JOSÉ')).toEqual(both);
    expect(await names('client', 'Jose\u0301')).toEqual(both);
    expect(await names('client', 'ñandu')).toEqual(['José Ñandú Consulting']);
    expect(await names('client', 'DUSSELDORF')).toEqual(['José Ñandú Consulting']);
    expect(await names('project', 'muller')).toEqual(['Brand refresh']);
  });

  it('folds compatibility characters the way NFKD does (ligatures, full-width letters)', async () => {
    expect(await names('client', 'fine full')).toEqual(['José Ñandú Consulting']);
    expect(await names('client', 'ﬁne')).toEqual(['José Ñandú Consulting']);
    expect(await names('client', 'ＦＵＬＬ')).toEqual(['José Ñandú Consulting']);
  });

  it('splits on everything that is not a letter or digit', async () => {
    expect(await names('client', 'ana@ACME.example')).toEqual(['José Ñandú Consulting']);
    expect(await names('client', 'www.anderson')).toEqual(['Anderson Partners']);
    // "0002" is also one typo away from 1002 and 0001.
    expect(await search('invoice', 'INV-0002')).toEqual([
      ['INV-0002', 0],
      ['INV-1002', 4],
      ['INV-0001', 4],
    ]);
  });

  it('tolerates one typo in a term of 3-7 characters, not two', async () => {
    expect(await names('client', 'smiht')).toEqual(['José Ñandú Consulting']); // transposition
    expect(await names('client', 'glbex')).toEqual([
      'Globex Deleted',
      'Globex Corporation',
      'Initech',
    ]); // deletion
    expect(await names('client', 'initeck')).toEqual(['Initech']); // substitution
    expect(await names('client', 'globeex')).toEqual(await names('client', 'glbex')); // insertion
    expect(await names('client', 'inetcj')).toEqual([]); // two edits
  });

  it('tolerates two typos in a term of 8 or more characters', async () => {
    expect(await names('client', 'andresson')).toEqual(['Anderson Partners']);
    expect(await names('client', 'corproatoin')).toEqual(['Globex Corporation']);
    expect(await names('client', 'de123465798')).toEqual(['Globex Corporation']);
    expect(await names('client', 'corprtaoinn')).toEqual([]); // three edits
  });

  it('matches a term of 1-2 characters only as a word prefix of the primary field', async () => {
    // Initech's contact is "Globex liaison": another field, so "gl" does not find it.
    expect(await names('client', 'gl')).toEqual([
      'Globex Deleted',
      'Globetrotter Ltd',
      'Globex Corporation',
    ]);
    expect(await names('client', 'an')).toEqual(['Anderson Partners']); // not Ana Smith's client
    expect(await names('client', 'ob')).toEqual([]); // not a word prefix
    expect(await names('client', 'gx')).toEqual([]); // no typos
    expect(await names('invoice', 'in')).toEqual(['INV-1002', 'INV-0002', 'INV-0001']);
  });

  it('matches a longer term as a word prefix of any searched field', async () => {
    expect(await names('client', 'globe')).toEqual([
      'Globex Deleted',
      'Globetrotter Ltd',
      'Globex Corporation',
      'Initech',
    ]);
    expect(await names('client', 'liais')).toEqual(['Initech']);
    expect(await names('client', '101')).toEqual(['Initech']); // postal code
  });

  it('requires every term', async () => {
    expect(await names('client', 'globex corporation')).toEqual(['Globex Corporation']);
    expect(await names('client', 'english globex')).toEqual(['Globex Corporation']);
    expect(await names('client', 'globex xylophone')).toEqual([]);
    expect(await names('client', 'globex globex GLOBEX')).toEqual(await names('client', 'globex'));
  });

  it('ranks exact before prefix before typo, the primary field before the others', async () => {
    expect(await search('client', 'nova', RANKING)).toEqual([
      ['Nova Labs', 0],
      ['Novaline', 1],
      ['Labs', 1],
      ['Novak Design', 2],
      ['Atlas', 3],
      ['Nowa Studio', 4],
      ['Bolt', 5],
    ]);
    // Per term the best of the record's words; the record's rank is the sum over the terms.
    expect(await search('client', 'nova labs', RANKING)).toEqual([
      ['Nova Labs', 0],
      ['Labs', 1],
    ]);
    expect(await search('client', 'globex', W)).toEqual([
      ['Globex Deleted', 0],
      ['Globex Corporation', 0],
      ['Initech', 1],
    ]);
  });

  it("finds projects by their client's name and their members' names", async () => {
    expect(await names('project', 'globex')).toEqual(['Website relaunch']);
    expect(await names('project', 'jose')).toEqual(['Brand refresh']);
    expect(await names('project', 'lovelace hopper')).toEqual(['Website relaunch']);
    expect(await names('project', 'colours')).toEqual(['Brand refresh']); // description
    expect(await search('project', 'website')).toEqual([['Website relaunch', 0]]);
  });

  it('finds invoices by number, client name, PO number, bill-to name, notes and lines', async () => {
    expect(await search('invoice', '0001')).toEqual([
      ['INV-0001', 0],
      ['INV-0002', 4],
    ]);
    expect(await names('invoice', 'globex')).toEqual(['INV-0001']);
    expect(await names('invoice', '7788')).toEqual(['INV-0002']);
    expect(await names('invoice', 'po')).toEqual([]); // short terms: the number only
    expect(await names('invoice', 'holdings')).toEqual(['INV-1002']);
    expect(await names('invoice', 'thank')).toEqual(['INV-0002']);
    expect(await names('invoice', 'developmnet sprint')).toEqual(['INV-0001']);
    expect(await names('invoice', 'workshop')).toEqual(['INV-0002']);
    expect(await names('invoice', 'lovelace 2026')).toEqual(['INV-0001']);
    expect(await search('invoice', 'smithson')).toEqual([['INV-1002', 1]]);
  });

  it('keeps to the workspace', async () => {
    expect(await names('client', 'umbrella')).toEqual([]);
    expect(await names('client', 'umbrella', OTHER)).toEqual(['Umbrella']);
    expect(await names('client', 'corporation', OTHER)).toEqual(['Globex Corporation']);
  });

  it('indexes deleted records too: the caller filters them', async () => {
    expect(await names('client', 'deleted')).toEqual(['Globex Deleted']);
  });

  it('gives no search for a text without terms', async () => {
    expect(searchQuery('client', W, '')).toBeNull();
    expect(searchQuery('client', W, ' -- !? ')).toBeNull();
    expect(searchQuery('client', W, 'Ünïcödé ＡＢ')?.terms).toEqual(['ab', 'unicode']);
  });
});
