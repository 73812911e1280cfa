import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';
import { Workspace, workspaces } from './support/workspace-builder.ts';

/**
 * The profitability report runs a plan kept from an earlier request when the read model's data
 * is the same (src/readmodel/plan-cache.ts), and plans again after any sync commit: DuckDB
 * plans with the tables' statistics, and a plan made before rows came in can leave them out.
 */

// Yan is paid in dollars, converted into euros at the workspace's one USD rate. While the rate
// is there, no profitability cell of the read model misses an FX rate.
const ws = new Workspace();
const yan = ws.user('Yan');
const work = ws.project('Work');
ws.payee(yan, { name: 'Yan', rates: [['2026-01-01', '100.00', 'USD']] });
const usd = ws.fx('USD', 'EUR', '2026-01-01', '0.5');
ws.entry({ user: yan, project: work, date: '2026-10-02', seconds: 3600 });
const moved = ws.entry({ user: yan, project: work, date: '2026-10-03', seconds: 3600 });

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ live: true });
  for (const w of workspaces) await h.importObject(w.snapshot);
  await h.sync();
});
afterAll(() => h.close());

const OCTOBER = '/team-payouts/profitability?from=2026-10-01&to=2026-10-31';
const HALF_OCTOBER = '/team-payouts/profitability?from=2026-10-01&to=2026-10-15';
const NOVEMBER = '/team-payouts/profitability?from=2026-11-01&to=2026-11-30';

interface Report {
  summary: { estimatedCost: string; missingFx: boolean; missingMetrics: string[] };
  members: { name: string }[];
  missingFx: { fromCurrency: string; metric: string; amount: string }[];
}

async function report(url: string): Promise<Report> {
  const res = await h.app.inject({
    method: 'GET',
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${ws.token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return (JSON.parse(res.body) as { data: Report }).data;
}

describe('plans kept between requests', () => {
  it('runs the plan made the first time while the data is the same', async () => {
    for (const url of [OCTOBER, HALF_OCTOBER]) {
      const first = await report(url);
      const before = { ...h.connections.planCounts };
      const again = await report(url);
      expect(again).toEqual(first);
      expect(h.connections.planCounts).toEqual({
        planned: before.planned,
        reused: before.reused + 1,
      });
    }
  });

  it('keeps the two plans used last on a connection', async () => {
    await report(OCTOBER);
    await report(HALF_OCTOBER);
    const before = { ...h.connections.planCounts };
    await report(NOVEMBER); // a third plan: October's, used longest ago, is dropped
    await report(HALF_OCTOBER);
    await report(OCTOBER);
    expect(h.connections.planCounts).toEqual({
      planned: before.planned + 2,
      reused: before.reused + 1,
    });
  });

  it('plans again after a sync commit, and shows what the commit changed', async () => {
    const october = await report(OCTOBER);
    expect(october.summary).toMatchObject({ estimatedCost: '100.00', missingFx: false });
    expect(october.missingFx).toEqual([]);
    expect((await report(HALF_OCTOBER)).missingFx).toEqual([]);
    expect((await report(NOVEMBER)).members).toEqual([]);

    // Until these commits, no profitability cell of the read model missed an FX rate, and none
    // was later than October: a plan made before them may count on both (DuckDB plans with
    // each column's least and greatest value). The rate goes, so Yan's hours can no longer be
    // converted, and one of them moves to November.
    await h.pool.query('UPDATE fx_rates SET deleted_at = now() WHERE id = $1', [usd]);
    await h.pool.query("UPDATE time_entries SET entry_date = '2026-11-05' WHERE id = $1", [moved]);
    await h.sync();
    const planned = h.connections.planCounts.planned;

    const oneHour = [
      { fromCurrency: 'USD', toCurrency: 'EUR', metric: 'estimatedCost', amount: '100.00' },
    ];
    for (const url of [OCTOBER, HALF_OCTOBER, NOVEMBER]) {
      const now = await report(url);
      expect(now.summary, url).toMatchObject({
        estimatedCost: '0.00',
        missingFx: true,
        missingMetrics: ['compensationCost', 'estimatedCost'],
      });
      expect(now.missingFx, url).toEqual(oneHour);
      expect(
        now.members.map((m) => m.name),
        url,
      ).toEqual(['Yan']);
    }
    expect(h.connections.planCounts.planned).toBe(planned + 3);
  });
});
