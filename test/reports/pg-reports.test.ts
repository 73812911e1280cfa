import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgPayoutSummary } from '../../bench/pg-reports/payout-summary.ts';
import {
  pgProfitability,
  type PgProfitabilityOptions,
} from '../../bench/pg-reports/profitability.ts';
import { pgUnpaidTimeFirstPage } from '../../bench/pg-reports/unpaid-time.ts';
import { todayIn } from '../../src/time/calendar.ts';
import {
  generatedWorkspace,
  smallWorkspaceOptions,
  type GeneratedWorkspace,
} from '../support/generated-workspaces.ts';
import { createHarness, type Harness } from '../support/harness.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are compared by value
type Body = Record<string, any>;

/**
 * The PostgreSQL baseline of the report benchmarks (bench/pg-reports/) against the API, on
 * generated workspaces: every report variant must give the API's `data` exactly, field order
 * included, so a benchmark ratio compares two computations of the same figures. The generator
 * brings the edge cases (rates changing mid-range, payees starting mid-range, running and
 * deleted entries, draft and void bills, adjustments, reversed payments, cancelled invoices,
 * discounts, JPY and KWD, a currency without FX rates in the range's first months).
 */
const WORKSPACES = 20;
const SETUP_TIMEOUT = 300_000;
const COMPARE_TIMEOUT = 120_000;

/** The generator's data runs from 2025-06 to 2026-11 (its default today is 2026-11-15). */
const RANGES = {
  month: { from: '2026-10-01', to: '2026-10-31' },
  year: { from: '2026-01-01', to: '2026-12-31' },
  // Reaches back before the late currency's first FX rate: amounts without one (missingFx).
  everything: { from: '2025-01-01', to: '2026-12-31' },
  // Partly covered months at both ends: their days are computed, whole months read from cells.
  partial: { from: '2026-02-10', to: '2026-09-20' },
} as const;

describe(`the PostgreSQL report baseline equals the API on ${WORKSPACES} generated workspaces`, () => {
  let h: Harness;
  const workspaces: GeneratedWorkspace[] = [];
  beforeAll(async () => {
    h = await createHarness();
    for (let seed = 1001; seed < 1001 + WORKSPACES; seed++)
      workspaces.push(await generatedWorkspace(h.pool, smallWorkspaceOptions(seed)));
    await h.sync();
  }, SETUP_TIMEOUT);
  afterAll(() => h?.close());

  const get = async (ws: GeneratedWorkspace, path: string): Promise<Body> => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1/team-payouts${path}`,
      headers: { authorization: `Bearer ${ws.ownerToken}` },
    });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
    return res.json<Body>().data as Body;
  };

  /** Equal values, and the same field order (JSON text) once they are equal. */
  const expectSame = (pg: unknown, api: unknown, label: string) => {
    expect(pg, label).toStrictEqual(api);
    expect(JSON.stringify(pg), label).toBe(JSON.stringify(api));
  };

  /** What the route derives from the token: Owner or Admin with the `write` scope. */
  const canManage = async (ws: GeneratedWorkspace): Promise<boolean> => {
    const prefix = ws.ownerToken.split('_')[2];
    const { rows } = await h.pool.query<{ can: boolean }>(
      `SELECT 'write' = ANY (t.scopes) AND m.role IN ('OWNER', 'ADMIN') AS can
       FROM api_tokens t
       JOIN members m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
       WHERE t.prefix = $1`,
      [prefix],
    );
    if (rows.length !== 1) throw new Error(`no token ${prefix}`);
    return rows[0]!.can;
  };

  it(
    'payout summary, whole and per currency',
    async () => {
      let compared = 0;
      let withOverdue = 0;
      for (const ws of workspaces) {
        const whole = await get(ws, '/summary');
        const listed = (whole.currencies as Body[]).map((c) => c.currency as string);
        const manage = await canManage(ws);
        // Every listed currency, and one the workspace has nothing in.
        for (const currency of [undefined, ...listed, 'CHF']) {
          const query = currency === undefined ? '' : `?currency=${currency}`;
          const api = await get(ws, `/summary${query}`);
          // "Today" exactly as the route derives it: the date in the workspace's time zone.
          const pg = await pgPayoutSummary(h.pool, ws.id, {
            today: todayIn(ws.timezone),
            canManage: manage,
            ...(currency === undefined ? {} : { currency }),
          });
          expectSame(pg, api, `${ws.id} summary${query}`);
          withOverdue += (api.currencies as Body[]).filter((c) => /[1-9]/.test(c.overdue)).length;
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(WORKSPACES * 3);
      expect(withOverdue).toBeGreaterThan(0);
    },
    COMPARE_TIMEOUT,
  );

  it(
    'unpaid time, first page of the default sort, whole and per currency',
    async () => {
      let items = 0;
      let fullPages = 0;
      for (const ws of workspaces) {
        const listed = ((await get(ws, '/summary')).currencies as Body[]).map(
          (c) => c.currency as string,
        );
        const variants: { query: string; currency?: string; scope?: 'all'; limit?: number }[] = [
          { query: '' },
          { query: '?scope=all', scope: 'all' },
          // A short page: where the sort cuts the list matters.
          { query: '?limit=10', limit: 10 },
          ...listed.map((currency) => ({ query: `?currency=${currency}`, currency })),
        ];
        for (const { query, limit = 50, ...filters } of variants) {
          const api = await get(ws, `/unpaid-time${query}`);
          const pg = await pgUnpaidTimeFirstPage(h.pool, ws.id, { ...filters, limit });
          expectSame(pg, api, `${ws.id} unpaid-time${query}`);
          items += pg.length;
          if (pg.length === limit) fullPages++;
        }
      }
      expect(items).toBeGreaterThan(WORKSPACES * 10);
      expect(fullPages).toBeGreaterThan(0);
    },
    COMPARE_TIMEOUT,
  );

  it(
    'profitability over a month, a year and the whole range, whole and per member',
    async () => {
      let reports = 0;
      let withMissingFx = 0;
      const compare = async (ws: GeneratedWorkspace, options: PgProfitabilityOptions) => {
        const query = new URLSearchParams(
          Object.entries(options).map(([k, v]): [string, string] => [k, String(v)]),
        ).toString();
        const api = await get(ws, `/profitability?${query}`);
        const pg = await pgProfitability(h.pool, ws.id, options);
        expectSame(pg, api, `${ws.id} profitability?${query}`);
        if (pg.missingFx.length > 0) withMissingFx++;
        reports++;
        return pg;
      };
      for (const [n, ws] of workspaces.entries()) {
        // A DuckDB report takes a fifth of a second here: the month and the year on every
        // workspace, the whole range (missing FX rates) or the other filters on every other.
        const ranges = [RANGES.month, RANGES.year, ...(n % 2 === 0 ? [RANGES.everything] : [])];
        for (const range of ranges) {
          const whole = await compare(ws, range);
          const member = whole.members[n % Math.max(whole.members.length, 1)];
          if (member) await compare(ws, { ...range, userId: member.userId! });
          const project = member?.projects?.[0]?.projectId;
          if (n % 2 === 1 && range === RANGES.year && project)
            await compare(ws, { ...range, projectId: project, page: 1, perPage: 2 });
        }
        // Members past the first page: the others are summed at the member grain.
        await compare(ws, { ...RANGES.partial, page: 2, perPage: 2 });
        await compare(ws, { ...RANGES.year, page: 2, perPage: 2 });
        if (n % 2 === 1) {
          const { rows } = await h.pool.query<{ id: string }>(
            'SELECT id FROM clients WHERE workspace_id = $1 ORDER BY id LIMIT 1 OFFSET $2',
            [ws.id, n % 3],
          );
          if (rows[0])
            await compare(ws, { ...RANGES.everything, clientId: rows[0].id, page: 2, perPage: 2 });
        }
      }
      expect(reports).toBeGreaterThan(WORKSPACES * 5);
      expect(withMissingFx).toBeGreaterThan(0);
    },
    COMPARE_TIMEOUT,
  );
});
