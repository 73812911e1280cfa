import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { todayIn } from '../../src/time/calendar.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  generatedWorkspace,
  smallWorkspaceOptions,
  type GeneratedWorkspace,
} from '../support/generated-workspaces.ts';
import {
  billFigures,
  payoutSummary,
  profitability,
  unpaidTimeItems,
  type SnapshotInput,
} from '../reference/payouts-reference.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are compared by value
type Body = Record<string, any>;

/**
 * The DuckDB views against the independent reference implementation (test/reference/), on
 * many random workspaces from the generator: every figure of every report must be equal to
 * the last digit. The generator covers the edge cases (rates changing mid-range, payees
 * starting mid-range, entries before the start date, running and deleted entries, draft and
 * void bills, adjustments, reversed payments, cancelled invoices, discounts, JPY and KWD).
 */
const WORKSPACES = Number(process.env.DIFFERENTIAL_WORKSPACES ?? 200);
/** Each comparison runs hundreds of reports: minutes on two busy cores. */
const LONG = 900_000;

const withoutLinks = (record: Body): Body => {
  const { links: _links, ...rest } = record;
  return rest;
};

/** A profitability report without what the reference does not compute (links). */
function comparableProfitability(data: Body): Body {
  const row = (r: Body): Body => withoutLinks(r);
  return {
    ...data,
    summary: row(data.summary as Body),
    members: (data.members as Body[]).map((m) => ({
      ...row(m),
      projects: (m.projects as Body[]).map(row),
    })),
  };
}

/** Twelve whole months: a calendar year, and the twelve months ending with October 2026. */
const KEPT_RANGES = [
  { from: '2026-01-01', to: '2026-12-31' },
  { from: '2025-11-01', to: '2026-10-31' },
] as const;

describe(`team payouts: DuckDB views equal the reference on ${WORKSPACES} generated workspaces`, () => {
  let h: Harness;
  const workspaces: GeneratedWorkspace[] = [];
  beforeAll(async () => {
    h = await createHarness();
    for (let seed = 1; seed <= WORKSPACES; seed++)
      workspaces.push(await generatedWorkspace(h.pool, smallWorkspaceOptions(seed)));
    await h.sync();
  }, LONG);
  afterAll(() => h.close());

  const get = async (ws: GeneratedWorkspace, path: string) => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1/team-payouts${path}`,
      headers: { authorization: `Bearer ${ws.ownerToken}` },
    });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
    return res.json<Body>();
  };
  /** Every record of a list, page by page. */
  const all = async (ws: GeneratedWorkspace, path: string) => {
    const records: Body[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const body: Body = await get(
        ws,
        `${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      records.push(...(body.data as Body[]));
      cursor = body.pagination.nextCursor as string | null;
    } while (cursor);
    return records;
  };
  const byId = (a: Body, b: Body) => ((a.id as string) < (b.id as string) ? -1 : 1);

  it(
    'bill figures',
    async () => {
      let compared = 0;
      for (const ws of workspaces) {
        const expected = billFigures(ws.snapshot as SnapshotInput);
        for (const bill of await all(ws, '/bills?sort=id')) {
          const { subtotal, adjustmentTotal, total, amountPaid, remaining, paymentStatus } = bill;
          expect(
            { subtotal, adjustmentTotal, total, amountPaid, remaining, paymentStatus },
            `${ws.id} bill ${bill.id}`,
          ).toEqual(expected[bill.id as string]);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(WORKSPACES);
    },
    LONG,
  );

  it(
    'unpaid time, in both scopes and by currency',
    async () => {
      let compared = 0;
      for (const ws of workspaces) {
        const snapshot = ws.snapshot as SnapshotInput;
        for (const [query, scope, currency] of [
          ['scope=all', 'all', undefined],
          ['', 'default', undefined],
          ['scope=all&currency=JPY', 'all', 'JPY'],
        ] as const) {
          const actual = (await all(ws, `/unpaid-time?sort=id&${query}`)).map(withoutLinks);
          const expected = unpaidTimeItems(snapshot, { scope, ...(currency ? { currency } : {}) });
          expect(actual.sort(byId), `${ws.id} ${query}`).toEqual(
            (expected as unknown as Body[]).sort(byId),
          );
          compared += actual.length;
        }
      }
      expect(compared).toBeGreaterThan(WORKSPACES);
    },
    LONG,
  );

  it(
    'profitability over several ranges, filters and pages',
    async () => {
      let reports = 0;
      for (const [n, ws] of workspaces.entries()) {
        const snapshot = ws.snapshot as SnapshotInput;
        const today = todayIn(ws.timezone);
        const s = snapshot as unknown as Body;
        const someUser = (s.payees as Body[] | undefined)?.[0]?.userId as string | undefined;
        const someProject = (s.projects as Body[] | undefined)?.[1]?.id as string | undefined;
        const someClient = (s.clients as Body[] | undefined)?.[2]?.id as string | undefined;
        const queries: Record<string, string | number>[] = [
          {},
          { from: '2026-01-01', to: '2026-12-31' },
          { from: '2025-06-01', to: '2026-11-30', page: 2, perPage: 3 },
          { ...KEPT_RANGES[1], page: 2, perPage: 2 },
          // Partly covered months: their days are computed, the whole months read from cells.
          { from: '2026-02-10', to: '2026-09-20', page: 2, perPage: 2 },
          { from: '2026-10-05', to: '2026-10-25' },
          ...(someUser ? [{ from: '2026-01-01', to: '2026-12-31', userId: someUser }] : []),
          ...(someProject
            ? [{ from: '2025-01-01', to: '2026-12-31', projectId: someProject }]
            : []),
          ...(someClient ? [{ from: '2026-09-01', to: '2026-10-31', clientId: someClient }] : []),
        ];
        // Every other kind of query per workspace, alternating: each kind runs on about half
        // of the workspaces, which keeps the test to a few minutes. A workspace with kept
        // reports also runs every query they serve (the first four, and the member's year).
        const kept = n % 4 === 0;
        const served = (query: Record<string, unknown>, i: number) =>
          kept && (i < 4 || 'userId' in query);
        for (const query of queries.filter((q, i) => (i + n) % 2 === 0 || served(q, i))) {
          const search = new URLSearchParams(
            Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
          ).toString();
          const actual = await get(ws, `/profitability${search ? `?${search}` : ''}`);
          const expected = profitability(snapshot, { today, ...query });
          expect(comparableProfitability(actual.data as Body), `${ws.id} ${search}`).toEqual(
            expected,
          );
          reports++;
        }
      }
      expect(reports).toBeGreaterThan(WORKSPACES * 2);
    },
    LONG,
  );

  it(
    'payout summary, whole and by currency',
    async () => {
      for (const ws of workspaces) {
        const snapshot = ws.snapshot as SnapshotInput;
        const today = todayIn(ws.timezone);
        for (const currency of [undefined, 'EUR', 'JPY', 'KWD']) {
          const actual = await get(ws, `/summary${currency ? `?currency=${currency}` : ''}`);
          const expected = payoutSummary(snapshot, {
            today,
            canManage: true,
            ...(currency ? { currency } : {}),
          });
          expect(actual.data, `${ws.id} ${currency ?? 'all'}`).toEqual(expected);
        }
      }
    },
    LONG,
  );
});
