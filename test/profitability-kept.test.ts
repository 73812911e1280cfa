import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.ts';
import { ReadModelStatus } from '../src/readmodel/read-model-status.ts';
import { KeptPages } from '../src/reports/profitability/profitability.kept.ts';
import {
  PeriodReportRefresher,
  refreshStalePeriod,
  refreshStalePeriods,
} from '../src/reports/profitability/profitability.periods.ts';
import {
  loadProfitability,
  type ProfitabilityParams,
  type ProfitabilityText,
} from '../src/reports/profitability/profitability.query.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { Workspace, workspaces } from './support/workspace-builder.ts';

/**
 * The reports of whole calendar months and years are kept ready (profitability.periods.ts): a
 * kept report serves only while it is of its period's current version, which every sync commit
 * changing what it shows moves on; a page of one is the same text, to the byte, as the report
 * computed from the cells.
 */

// Ada and Grace are payees (Grace in dollars, converted at the one USD rate); Linus has none:
// his member row carries his user's name and misses a pay rate. Work in 2025 and 2026.
const ws = new Workspace();
const ada = ws.user('Ada');
const grace = ws.user('Grace');
const linus = ws.user('Linus');
const client = ws.client('Globex');
const site = ws.project('Website', client);
const app = ws.project('App', client);
const audit = ws.project('Audit');
ws.payee(ada, { name: 'Ada L.', rates: [['2025-01-01', '80.00', 'EUR']] });
ws.payee(grace, { name: 'Grace H.', rates: [['2025-01-01', '100.00', 'USD']] });
ws.fx('USD', 'EUR', '2025-01-01', '0.9');
ws.entry({ user: ada, project: site, date: '2026-10-02', seconds: 3600 });
ws.entry({ user: ada, project: app, date: '2026-10-09', seconds: 5400 });
ws.entry({ user: grace, project: site, date: '2026-10-03', seconds: 7200 });
const moved = ws.entry({ user: grace, project: audit, date: '2026-10-20', seconds: 1800 });
ws.entry({ user: linus, project: audit, date: '2026-10-21', seconds: 3600 });
ws.entry({ user: linus, project: site, date: '2026-11-04', seconds: 900 });
ws.entry({ user: ada, project: audit, date: '2025-12-30', seconds: 3600 });
const invoice = ws.invoice(client, {
  currency: 'EUR',
  issueDate: '2026-10-15',
  subtotal: '500.00',
  total: '500.00',
  paid: '600.00',
  lines: [{ project: site, amount: '500.00', kind: 'FIXED_FEE' }],
});

const OCTOBER = { from: '2026-10-01', to: '2026-10-31' };
const NOVEMBER = { from: '2026-11-01', to: '2026-11-30' };
const YEAR_2026 = { from: '2026-01-01', to: '2026-12-31' };
const DECEMBER_2025 = { from: '2025-12-01', to: '2025-12-31' };
const YEAR_2025 = { from: '2025-01-01', to: '2025-12-31' };
// Twelve months ending with a month with work.
const TWELVE_TO_OCTOBER = { from: '2025-11-01', to: '2026-10-31' };

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ live: true });
  for (const w of workspaces) await h.importObject(w.snapshot);
  await h.sync();
  await h.keepReports('all');
  pages = new KeptPages(h.status);
});
afterAll(() => h.close());

function params(range: { from: string; to: string }, page = 1, perPage = 25) {
  return { workspaceId: ws.id, ...range, page, perPage } satisfies ProfitabilityParams;
}

// Pages of kept reports read lately, as a server keeps them (current with the harness's
// commits): every test reads through them.
let pages: KeptPages;

/** The report of `p`, kept or computed as the read model allows, or computed when `kept` is false. */
function load(p: ProfitabilityParams, kept = true): Promise<ProfitabilityText> {
  return h.connections.use((connection, plans) =>
    loadProfitability(connection, plans, p, { kept, pages }),
  );
}

/** The API as a server builds it on the harness's stores, with pages of its own in memory. */
function serverApp(periodReports?: PeriodReportRefresher) {
  return buildApp({
    db: h.db,
    readModel: h.readModel,
    status: h.status,
    tokenEnv: 'test',
    tokenIdentities: h.tokenIdentities,
    ...(periodReports ? { periodReports } : {}),
  });
}

/** Deletes the kept reports of `range`, as if nobody had asked for it. */
async function forgetKept(range: { from: string; to: string }): Promise<void> {
  const duck = await h.readModel.connect();
  try {
    for (const table of ['profitability_period_reports', 'profitability_period_members']) {
      await duck.run(
        `DELETE FROM ${table} WHERE workspace_id = '${ws.id}' AND period_from = '${range.from}' AND period_to = '${range.to}'`,
      );
    }
  } finally {
    duck.closeSync();
  }
}

/** Refreshes every stale period that has a kept report, as the server does after a commit. */
async function keepReady(): Promise<void> {
  await h.keepReports('kept');
}

async function expectServedAsComputed(p: ProfitabilityParams, source: 'kept' | 'computed') {
  const served = await load(p);
  const computed = await load(p, false);
  expect(computed.source).toBe('computed');
  expect(served.source, `${p.from}..${p.to} page ${p.page} of ${p.perPage}`).toBe(source);
  expect(served.json, `${p.from}..${p.to} page ${p.page} of ${p.perPage}`).toBe(computed.json);
  return JSON.parse(served.json) as Report;
}

interface Report {
  baseCurrency: string;
  memberTotal: number;
  summary: { billedNet: string; estimatedCost: string };
  members: { name: string; projects: { projectName: string }[] }[];
  unreconciledReceipts: { amount: string }[];
}

describe('profitability reports kept ready', () => {
  it('serves every page of a whole month and year as the computed report, byte for byte', async () => {
    for (const range of [
      OCTOBER,
      NOVEMBER,
      YEAR_2026,
      DECEMBER_2025,
      YEAR_2025,
      TWELVE_TO_OCTOBER,
    ]) {
      for (const perPage of [1, 25]) {
        for (let page = 1; page <= Math.ceil(3 / perPage) + 1; page++) {
          await expectServedAsComputed(params(range, page, perPage), 'kept');
        }
      }
    }
    const october = await expectServedAsComputed(params(OCTOBER, 2, 1), 'kept');
    expect(october.memberTotal).toBe(3);
    expect(october.members.map((m) => m.name)).toEqual(['Grace H.']);
    // Unreconciled receipts follow the range's invoices and are read with the request.
    expect(october.unreconciledReceipts).toEqual([{ currency: 'EUR', amount: '100.00' }]);
  });

  it("keeps one member's report of a period once asked for, as computed", async () => {
    for (const range of [OCTOBER, YEAR_2026]) {
      for (const userId of [ada, grace, linus]) {
        const p = { ...params(range), userId };
        await expectServedAsComputed(p, 'computed');
        expect(await h.keepReports({ workspaceId: ws.id, ...range, userId })).toBe(1);
        await expectServedAsComputed(p, 'kept');
        await expectServedAsComputed({ ...p, page: 2, perPage: 1 }, 'kept');
      }
    }
    // The whole team's report and the members' are kept apart.
    const october = await expectServedAsComputed(params(OCTOBER), 'kept');
    const ada1 = await expectServedAsComputed({ ...params(OCTOBER), userId: ada }, 'kept');
    expect(october.memberTotal).toBe(3);
    expect(ada1.memberTotal).toBe(1);
    expect(ada1.members.map((m) => m.name)).toEqual(['Ada L.']);
  });

  it('computes any other range or filter', async () => {
    for (const p of [
      { ...params({ from: '2026-10-01', to: '2026-11-30' }) },
      // Twelve months ending with a month without work.
      { ...params({ from: '2026-02-01', to: '2027-01-31' }) },
      { ...params({ from: '2026-10-02', to: '2026-10-31' }) },
      { ...params(NOVEMBER), userId: ada },
      { ...params(YEAR_2026), projectId: site },
      { ...params(OCTOBER), clientId: client },
    ]) {
      expect((await load(p)).source).toBe('computed');
    }
  });

  it('computes a period a commit changed until its report is kept again', async () => {
    // Grace's half hour moves from October to November: both months and 2026 are stale.
    await h.pool.query("UPDATE time_entries SET entry_date = '2026-11-05' WHERE id = $1", [moved]);
    await h.sync();
    for (const range of [OCTOBER, NOVEMBER, YEAR_2026, TWELVE_TO_OCTOBER]) {
      await expectServedAsComputed(params(range), 'computed');
    }
    const graceOctober = { ...params(OCTOBER), userId: grace };
    await expectServedAsComputed(graceOctober, 'computed');
    const november = await expectServedAsComputed(params(NOVEMBER), 'computed');
    expect(november.members.map((m) => m.name)).toEqual(['Grace H.', 'Linus']);
    // The other year's periods did not change.
    await expectServedAsComputed(params(DECEMBER_2025), 'kept');
    await expectServedAsComputed(params(YEAR_2025), 'kept');

    await keepReady();
    for (const range of [OCTOBER, NOVEMBER, YEAR_2026]) {
      await expectServedAsComputed(params(range), 'kept');
    }
    // Grace's kept report of October was refreshed with the team's.
    await expectServedAsComputed(graceOctober, 'kept');
    expect(
      (await expectServedAsComputed(params(NOVEMBER), 'kept')).members.map((m) => m.name),
    ).toEqual(['Grace H.', 'Linus']);
  });

  it('computes the periods of an invoice that changed', async () => {
    // Paid 700.00 of 500.00 now: 200.00 received beyond it. The invoice names no entry, so
    // no cell changes; its issue month does.
    await h.pool.query("UPDATE invoices SET amount_paid = '700.00' WHERE id = $1", [invoice]);
    await h.sync();
    for (const range of [OCTOBER, YEAR_2026, TWELVE_TO_OCTOBER]) {
      const report = await expectServedAsComputed(params(range), 'computed');
      expect(report.unreconciledReceipts).toEqual([{ currency: 'EUR', amount: '200.00' }]);
    }
    await expectServedAsComputed(params(DECEMBER_2025), 'kept');
    await keepReady();
    const october = await expectServedAsComputed(params(OCTOBER), 'kept');
    expect(october.unreconciledReceipts).toEqual([{ currency: 'EUR', amount: '200.00' }]);
  });

  it('computes every period of a workspace whose project or user was renamed', async () => {
    const renames: [string, string, (october: Report) => string[]][] = [
      [
        "UPDATE projects SET name = 'Audit 2026' WHERE id = $1",
        audit,
        (october) => october.members[2]!.projects.map((p) => p.projectName),
      ],
      [
        "UPDATE users SET name = 'Linus T.' WHERE id = $1",
        linus,
        (october) => october.members.map((m) => m.name),
      ],
    ];
    const expected = [['Audit 2026'], ['Ada L.', 'Grace H.', 'Linus T.']];
    for (const [index, [statement, id, shown]] of renames.entries()) {
      await h.pool.query(statement, [id]);
      await h.sync();
      for (const range of [OCTOBER, NOVEMBER, YEAR_2026, DECEMBER_2025, YEAR_2025]) {
        await expectServedAsComputed(params(range), 'computed');
      }
      await keepReady();
      expect(shown(await expectServedAsComputed(params(OCTOBER), 'kept'))).toEqual(expected[index]);
    }
  });

  it('computes every period of a workspace whose base currency or FX rate changed, one with no work too', async () => {
    // A month the sync versions while an entry is in it, kept ready once the entry has left.
    const MARCH_2027 = { from: '2027-03-01', to: '2027-03-31' };
    await h.pool.query("UPDATE time_entries SET entry_date = '2027-03-10' WHERE id = $1", [moved]);
    await h.sync();
    await h.pool.query("UPDATE time_entries SET entry_date = '2026-10-20' WHERE id = $1", [moved]);
    await h.sync();
    expect(await h.keepReports({ workspaceId: ws.id, ...MARCH_2027 })).toBe(1);
    await keepReady();
    expect((await expectServedAsComputed(params(MARCH_2027), 'kept')).members).toEqual([]);
    for (const currency of ['USD', 'EUR']) {
      await h.pool.query('UPDATE workspaces SET base_currency = $1 WHERE id = $2', [
        currency,
        ws.id,
      ]);
      await h.sync();
      for (const range of [MARCH_2027, OCTOBER, YEAR_2025])
        await expectServedAsComputed(params(range), 'computed');
      await keepReady();
      expect((await expectServedAsComputed(params(MARCH_2027), 'kept')).baseCurrency).toBe(
        currency,
      );
    }
    // A rate converts any period's amounts: a change computes March 2027 too, until kept again.
    for (const rate of ['0.8', '0.9']) {
      await h.pool.query('UPDATE fx_rates SET rate = $1 WHERE workspace_id = $2', [rate, ws.id]);
      await h.sync();
      await expectServedAsComputed(params(MARCH_2027), 'computed');
      await keepReady();
      await expectServedAsComputed(params(MARCH_2027), 'kept');
    }
    // Back to the workspace's own currency (EUR, the loop's last) and rate; March 2027 is kept
    // no more.
    await forgetKept(MARCH_2027);
  });

  it('never serves a report computed before a commit that landed while it was written', async () => {
    await h.pool.query("UPDATE projects SET name = 'Audit' WHERE id = $1", [audit]);
    await h.sync();
    const before = JSON.parse((await load(params(YEAR_2026))).json) as { summary: object };
    // 2026, the period ending last, is kept from a snapshot before the FX rate changes; the
    // change commits before the refresh does.
    const duck = await h.readModel.connect();
    try {
      const refreshed = await refreshStalePeriod(duck, 'kept', {
        beforeCommit: async () => {
          await h.pool.query("UPDATE fx_rates SET rate = '0.5' WHERE workspace_id = $1", [ws.id]);
          await h.sync();
        },
      });
      expect(refreshed).toEqual({ workspaceId: ws.id, ...YEAR_2026 });
    } finally {
      duck.closeSync();
    }
    const year = await expectServedAsComputed(params(YEAR_2026), 'computed');
    expect(year.summary).not.toEqual(before.summary);
    await keepReady();
    expect(await expectServedAsComputed(params(YEAR_2026), 'kept')).toEqual(year);
  });

  it('keeps a period ready once a request computed its report', async () => {
    await forgetKept(NOVEMBER);
    // Nobody has asked for November since (as in a server started now, whose memory holds no
    // page): a refresh after a commit leaves it computed.
    pages = new KeptPages(h.status);
    await h.keepReports('kept');
    expect((await load(params(NOVEMBER))).source).toBe('computed');

    const refresher = new PeriodReportRefresher(h.readModel);
    const app = await serverApp(refresher);
    try {
      const get = (more = '') =>
        app.inject({
          method: 'GET',
          url: `/api/v1/team-payouts/profitability?from=${NOVEMBER.from}&to=${NOVEMBER.to}${more}`,
          headers: { authorization: `Bearer ${ws.token}` },
        });
      const first = await get();
      expect(first.statusCode).toBe(200);
      await refresher.idle(); // the refresh the request started
      expect((await load(params(NOVEMBER))).source).toBe('kept');
      expect((await get()).body).toBe(first.body);
      // One member's November is kept once asked for; a user with no work in it is not.
      const nobody = '00000000-0000-4000-8000-000000000001';
      for (const userId of [linus, nobody]) {
        const res = await get(`&userId=${userId}`);
        expect(res.statusCode).toBe(200);
      }
      await refresher.idle();
      expect((await load({ ...params(NOVEMBER), userId: linus })).source).toBe('kept');
      expect((await load({ ...params(NOVEMBER), userId: nobody })).source).toBe('computed');
    } finally {
      await refresher.stop();
      await app.close();
    }
  });

  it('forgets the kept reports of a period the sync no longer versions', async () => {
    const duck = await h.readModel.connect();
    const kept = async (table: string) =>
      (
        await duck.runAndReadAll(
          `SELECT count(*) FROM ${table} WHERE workspace_id = '${ws.id}' AND period_from = '2025-12-01' AND period_to = '2025-12-31'`,
        )
      ).getRows()[0]![0];
    try {
      expect(await kept('profitability_period_reports')).toBe(1n);
      expect(await kept('profitability_period_members')).toBe(1n);
      // As after a first load whose store no longer has work in December 2025.
      await duck.run(
        `DELETE FROM profitability_period_versions WHERE workspace_id = '${ws.id}' AND period_from = '2025-12-01' AND period_to = '2025-12-31'`,
      );
      h.status.committed(h.status.dataAsOf!, 'everything'); // as a first load reports it
      await refreshStalePeriods(duck);
      expect(await kept('profitability_period_reports')).toBe(0n);
      expect(await kept('profitability_period_members')).toBe(0n);
    } finally {
      duck.closeSync();
    }
    expect((await load(params(DECEMBER_2025))).source).toBe('computed');
  });

  it("serves a page read before from memory while its period's version is current", async () => {
    const october = params(OCTOBER);
    const first = await expectServedAsComputed(october, 'kept');
    // The kept texts are gone from the read model, not from memory: the version is unchanged.
    const duck = await h.readModel.connect();
    try {
      await duck.run(
        `DELETE FROM profitability_period_members WHERE workspace_id = '${ws.id}' AND period_from = '2026-10-01' AND period_to = '2026-10-31' AND user_id IS NULL`,
      );
    } finally {
      duck.closeSync();
    }
    const again = await load(october);
    expect(again.source).toBe('kept');
    expect(JSON.parse(again.json)).toEqual(first);
    // Ada's hour of October 2 becomes two: the commit gives October a new version, and the page
    // in memory no longer serves.
    await h.pool.query(
      "UPDATE time_entries SET duration_seconds = 7200 WHERE workspace_id = $1 AND entry_date = '2026-10-02'",
      [ws.id],
    );
    await h.sync();
    const changed = await expectServedAsComputed(october, 'computed');
    expect(changed.summary).not.toEqual(first.summary);
    await keepReady();
    expect(await expectServedAsComputed(october, 'kept')).toEqual(changed);
  });

  it('keeps pages in memory up to a number of characters, the least recently used leaving', () => {
    const small = new KeptPages(new ReadModelStatus(), 4_000);
    const page = (text: string) => ({
      baseCurrency: 'EUR',
      memberTotal: 1,
      missingRateCount: 0,
      summary: text,
      members: [],
      unallocatedRevenue: [],
      unreconciledReceipts: [],
      missingFx: [],
      fxRates: [],
    });
    small.set('a', page('a'.repeat(900)));
    small.set('b', page('b'.repeat(900)));
    small.set('c', page('c'.repeat(900)));
    expect(small.get('a')?.summary).toHaveLength(900); // a is now the most recently used
    small.set('d', page('d'.repeat(900))); // 3,600 characters: all four fit
    small.set('e', page('e'.repeat(900))); // b, the least recently used, leaves
    expect(['a', 'b', 'c', 'd', 'e'].filter((key) => small.get(key) !== undefined)).toEqual([
      'a',
      'c',
      'd',
      'e',
    ]);
    // A page of over a quarter of the capacity is not kept at all.
    small.set('big', page('x'.repeat(1_001)));
    expect(small.get('big')).toBeUndefined();
  });

  it('remembers a version only until the next commit, and not when one came while it was read', () => {
    const status = new ReadModelStatus();
    const memory = new KeptPages(status);
    const before = memory.commitCount;
    status.committed(new Date(), 'everything'); // a commit lands while the version is read
    memory.rememberVersion('period', '5', before);
    expect(memory.version('period')).toBeUndefined();
    memory.rememberVersion('period', '6', memory.commitCount);
    expect(memory.version('period')).toBe('6');
    status.committed(new Date(), new Map([['time_entries', null]]));
    expect(memory.version('period')).toBeUndefined();
  });

  it("answers a server's next request with a commit's change, whatever its memory holds", async () => {
    const app = await serverApp();
    try {
      const get = async () => {
        const res = await app.inject({
          method: 'GET',
          url: `/api/v1/team-payouts/profitability?from=${OCTOBER.from}&to=${OCTOBER.to}`,
          headers: { authorization: `Bearer ${ws.token}` },
        });
        expect(res.statusCode).toBe(200);
        return res.body;
      };
      const computed = async () => `{"data":${(await load(params(OCTOBER), false)).json}}`;
      await keepReady();
      const before = await get();
      expect(await get()).toBe(before); // from the server's memory
      expect(before).toBe(await computed());
      await h.pool.query(
        "UPDATE time_entries SET duration_seconds = 900 WHERE workspace_id = $1 AND entry_date = '2026-10-02'",
        [ws.id],
      );
      await h.sync();
      const after = await get();
      expect(after).not.toBe(before);
      expect(after).toBe(await computed());
    } finally {
      await app.close();
    }
  });
});
