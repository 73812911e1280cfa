import { describe, expect, it, vi } from 'vitest';
import { useProfitabilityReport } from '../support/profitability-report.ts';
import { Workspace } from '../support/workspace-builder.ts';

/**
 * The figures of GET /team-payouts/profitability (docs/contract.md, "Profitability" and
 * "FX conversion", test/reference choices 26-42), one rule at a time, each on a small workspace
 * built inline and worked out by hand. Every workspace goes through the real path: snapshot ->
 * PostgreSQL -> sync -> DuckDB -> HTTP. Access and query parsing are in profitability-http.test.ts.
 * This file: rows, paging and the summary; deleted records; the default range; sums beyond 64 bits; the answer as one text.
 */

const profitability = useProfitabilityReport();
const { report } = profitability;

describe('members: order, paging and the summary (docs/contract.md, "Rows, summary and paging")', () => {
  const ws = new Workspace();
  const work = ws.project('Work');
  // Code-point order: upper case before lower case, 'É' after both; equal names by userId.
  const names = ['Zoe', 'adam', 'Émile', 'Bea', 'Bea'];
  const users = names.map((name) => ws.user(name));
  const carl = ws.user('Carl'); // paid as "Aaron": the payee's name wins
  for (const [i, user] of users.entries()) {
    ws.payee(user, { name: names[i]!, rates: [['2026-01-01', '10.00', 'EUR']] });
    ws.entry({ user, project: work, date: '2026-10-01', seconds: 3600 });
  }
  ws.payee(carl, { name: 'Aaron', rates: [['2026-01-01', '10.00', 'EUR']] });
  ws.entry({ user: carl, project: work, date: '2026-10-01', seconds: 3600 });
  const beta = ws.project('beta');
  const alpha1 = ws.project('Alpha');
  const alpha2 = ws.project('Alpha');
  for (const project of [beta, alpha2, alpha1])
    ws.entry({ user: carl, project, date: '2026-10-02', seconds: 360 });

  it('sorts members by name in code-point order, then userId', async () => {
    const data = await report(ws);
    expect(data.members.map((m) => [m.name, m.userId])).toEqual([
      ['Aaron', carl],
      ['Bea', users[3]],
      ['Bea', users[4]],
      ['Zoe', users[0]],
      ['adam', users[1]],
      ['Émile', users[2]],
    ]);
  });

  it('sorts a member’s projects by name, then projectId', async () => {
    const data = await report(ws);
    // 'Alpha' < 'Work' < 'beta': upper case sorts before lower case.
    expect(data.members[0]!.projects.map((p) => p.projectId)).toEqual([alpha1, alpha2, work, beta]);
    expect(data.members[0]!.projectCount).toBe(4);
  });

  it('pages the members and keeps the summary over all of them', async () => {
    const data = await report(ws, 'from=2026-10-01&to=2026-10-31&page=2&perPage=2');
    expect(data).toMatchObject({ page: 2, perPage: 2, memberTotal: 6, missingRateCount: 0 });
    expect(data.members.map((m) => m.userId)).toEqual([users[4], users[0]]);
    // Five members x 10.00, Carl 10.00 + 3 x 1.00.
    expect(data.summary).toMatchObject({
      estimatedCost: '63.00',
      margin: '-63.00',
      marginPercent: null,
      clientUnbilledSeconds: 6 * 3600 + 3 * 360,
    });
  });

  it('answers an empty page past the last member', async () => {
    const data = await report(ws, 'from=2026-10-01&to=2026-10-31&page=4&perPage=2');
    expect(data.members).toEqual([]);
    expect(data.memberTotal).toBe(6);
    expect(data.summary.estimatedCost).toBe('63.00');
  });

  it('defaults to 25 members a page', async () => {
    const data = await report(ws);
    expect(data).toMatchObject({ page: 1, perPage: 25 });
    expect(data.members).toHaveLength(6);
  });
});

describe('deleted records count nowhere; deletion does not cascade (choice 1)', () => {
  const ws = new Workspace();
  const gus = ws.user('Gus');
  const oldProject = ws.project('Old', null, { deleted: true });
  const payee = ws.payee(gus, {
    name: 'Gus Payee',
    rates: [['2026-01-01', '10.00', 'EUR']],
    deleted: true,
  });
  const g1 = ws.entry({ user: gus, project: oldProject, date: '2026-10-01', seconds: 3600 });
  ws.entry({ user: gus, project: oldProject, date: '2026-10-02', seconds: 0 });
  ws.bill(payee, 'EUR', 'APPROVED', [{ entry: g1, amount: '25.00' }]);

  it('keeps the approved bill of a deleted payee and the entries of a deleted project', async () => {
    const data = await report(ws);
    expect(data.members).toHaveLength(1);
    expect(data.members[0]).toMatchObject({
      userId: gus,
      payeeId: null,
      name: 'Gus',
      approvedCost: '25.00',
      // The 0-second entry has no bill and, without a live payee, no rate.
      missingPayRate: true,
      projectCount: 1,
      projects: [expect.objectContaining({ projectId: oldProject, projectName: 'Old' })],
    });
  });
});

describe('the default range: the current month in the workspace time zone', () => {
  // At 2026-10-31T12:00Z it is already November 1st on Kiritimati (UTC+14).
  const ws = new Workspace({ timezone: 'Pacific/Kiritimati' });
  const kai = ws.user('Kai');
  const work = ws.project('Work');
  ws.payee(kai, { name: 'Kai', rates: [['2026-01-01', '10.00', 'EUR']] });
  ws.entry({ user: kai, project: work, date: '2026-10-31', seconds: 3600 });
  ws.entry({ user: kai, project: work, date: '2026-11-01', seconds: 7200 });

  async function reportAt(instant: string, query: string) {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(instant));
    try {
      return await report(ws, query);
    } finally {
      vi.useRealTimers();
    }
  }

  it('takes the workspace’s month, not the server’s', async () => {
    const data = await reportAt('2026-10-31T12:00:00Z', '');
    expect(data).toMatchObject({ from: '2026-11-01', to: '2026-11-30' });
    expect(data.summary.estimatedCost).toBe('20.00');
  });

  it('defaults each end on its own', async () => {
    const data = await reportAt('2026-10-31T12:00:00Z', 'from=2026-10-15');
    expect(data).toMatchObject({ from: '2026-10-15', to: '2026-11-30' });
    expect(data.summary.estimatedCost).toBe('30.00');
  });
});

describe('sums beyond 64 bits (docs/summaries.md, "Sums beyond 64 bits")', () => {
  // Each of Zoe's hours costs 99,999,999,999,999.99 EUR, the largest cost in cents that
  // DECIMAL(18,4) holds: 999,999,999,999,999,900 units of 10^-4. Ten of them in October make a
  // month cell of 9,999,999,999,999,999,000 units, beyond 2^63 - 1 (9,223,372,036,854,775,807).
  const ws = new Workspace();
  const al = ws.user('Al');
  const zoe = ws.user('Zoe');
  const work = ws.project('Work');
  ws.payee(al, { name: 'Al', rates: [['2026-01-01', '10.00', 'EUR']] });
  ws.payee(zoe, { name: 'Zoe', rates: [['2026-01-01', '99999999999999.99', 'EUR']] });
  ws.entry({ user: al, project: work, date: '2026-10-01', seconds: 3600 }); // 10.00
  for (let day = 2; day <= 11; day++) {
    ws.entry({
      user: zoe,
      project: work,
      date: `2026-10-${String(day).padStart(2, '0')}`,
      seconds: 3600,
    });
  }
  ws.entry({ user: zoe, project: work, date: '2026-09-30', seconds: 3600 });
  // One entry of ten hours: a single fact beyond 2^62.
  ws.entry({ user: zoe, project: work, date: '2026-08-14', seconds: 36_000 });

  it('keeps a fact, and a month sum, that do not fit 64 bits as rows of 64-bit parts', async () => {
    const duck = await profitability.h.readModel.connect();
    try {
      const facts = await duck.runAndReadAll(
        `SELECT CAST(entry_date AS VARCHAR) AS day, estimated_e4, estimated_b4, missing_pay_rate
         FROM profitability_facts
         WHERE workspace_id = '${ws.id}' AND user_id = '${zoe}' AND entry_date < DATE '2026-09-01'
         ORDER BY estimated_e4`,
      );
      // Ten hours in one entry: 9,999,999,999,999,999,000 units in three parts (2^62 is
      // 4,611,686,018,427,387,904), the entry's own facts on one of them only.
      expect(facts.getRowObjectsJson()).toEqual(
        [0, 1, 2].map(() => ({
          day: '2026-08-14',
          estimated_e4: '3333333333333333000',
          estimated_b4: '3333333333333333000',
          missing_pay_rate: false,
        })),
      );
      // The month rollup's sums, stored as BIGINT parts too: beyond 2^62 a cell is several
      // rows, each of them within 64 bits, that add up to it.
      const months = await duck.runAndReadAll(
        `SELECT CAST(month AS VARCHAR) AS month, count(*) AS parts,
           CAST(sum(estimated_e4) AS VARCHAR) AS estimated_e4,
           CAST(sum(estimated_b4) AS VARCHAR) AS estimated_b4,
           max(abs(estimated_e4)) <= 4611686018427387905 AS parts_fit
         FROM profitability_month_facts
         WHERE workspace_id = '${ws.id}' AND user_id = '${zoe}'
         GROUP BY month ORDER BY month`,
      );
      expect(months.getRowObjectsJson()).toEqual([
        {
          month: '2026-08-01',
          parts: '3',
          estimated_e4: '9999999999999999000',
          estimated_b4: '9999999999999999000',
          parts_fit: true,
        },
        {
          month: '2026-09-01',
          parts: '1',
          estimated_e4: '999999999999999900',
          estimated_b4: '999999999999999900',
          parts_fit: true,
        },
        // Ten entries of an hour each: beyond 2^63 - 1 as a sum, in three rows.
        {
          month: '2026-10-01',
          parts: '3',
          estimated_e4: '9999999999999999000',
          estimated_b4: '9999999999999999000',
          parts_fit: true,
        },
      ]);
    } finally {
      duck.closeSync();
    }
  });

  it('reports a fact of parts exactly, from the month rollup and from the days', async () => {
    for (const range of ['from=2026-08-01&to=2026-08-31', 'from=2026-08-10&to=2026-08-20']) {
      const data = await report(ws, range);
      expect(data.summary.estimatedCost, range).toBe('999999999999999.90');
      expect(data.members[0]).toMatchObject({ userId: zoe, missingPayRate: false });
    }
  });

  it('reports such sums exactly, from the month rollup and from the days', async () => {
    // Zoe on the page: her project's month cell.
    const zoePage = await report(ws, 'from=2026-10-01&to=2026-10-31&perPage=1&page=2');
    expect(zoePage.members[0]).toMatchObject({
      userId: zoe,
      estimatedCost: '999999999999999.90',
      projects: [expect.objectContaining({ estimatedCost: '999999999999999.90' })],
    });
    // Al on the page: Zoe only in the summary, from her member cells; and across two months.
    const alPage = await report(ws, 'from=2026-10-01&to=2026-10-31&perPage=1');
    expect(alPage.members[0]).toMatchObject({ userId: al, estimatedCost: '10.00' });
    expect(alPage.summary.estimatedCost).toBe('1000000000000009.90');
    const twoMonths = await report(ws, 'from=2026-09-01&to=2026-10-31&perPage=1');
    expect(twoMonths.summary.estimatedCost).toBe('1100000000000009.89');
    // Days of a partly covered month: computed from the entries, not read from the cells.
    const days = await report(ws, 'from=2026-10-02&to=2026-10-30');
    expect(days.summary.estimatedCost).toBe('999999999999999.90');
    expect(days.summary.nativeAmounts).toContainEqual({
      currency: 'EUR',
      metric: 'estimatedCost',
      amount: '999999999999999.90',
    });
  });
});

describe('the report leaves DuckDB as one text (profitability.query.ts)', () => {
  // Its rows and fields are apart by the control characters RS and US: names holding them (and
  // the other separators a JSON text might be cut on) still come back whole.
  const ws = new Workspace();
  const odd = ws.user('Odd\u001eName\u001f,"}]');
  const work = ws.project('Pro\u001fject\u001e\\');
  ws.payee(odd, { name: 'Payee\u001e\u001f', rates: [['2026-01-01', '10.00', 'EUR']] });
  ws.entry({ user: odd, project: work, date: '2026-10-05', seconds: 3600 });

  it('keeps every character of the names', async () => {
    const data = await report(ws);
    expect(data.members).toHaveLength(1);
    expect(data.members[0]).toMatchObject({
      name: 'Payee\u001e\u001f',
      estimatedCost: '10.00',
      projects: [expect.objectContaining({ projectName: 'Pro\u001fject\u001e\\' })],
    });
    expect(data.summary.estimatedCost).toBe('10.00');
  });
});
