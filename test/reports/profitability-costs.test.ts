import { describe, expect, it } from 'vitest';
import { projectRow, useProfitabilityReport } from '../support/profitability-report.ts';
import { Workspace } from '../support/workspace-builder.ts';

/**
 * The figures of GET /team-payouts/profitability (docs/contract.md, "Profitability" and
 * "FX conversion", test/reference choices 26-42), one rule at a time, each on a small workspace
 * built inline and worked out by hand. Every workspace goes through the real path: snapshot ->
 * PostgreSQL -> sync -> DuckDB -> HTTP. Access and query parsing are in profitability-http.test.ts.
 * This file: the costs (estimated, rounded, approved, paid).
 */

const profitability = useProfitabilityReport();
const { report } = profitability;

describe('estimated cost (docs/contract.md, "Costs": pay rate)', () => {
  // Ada: payee from 2026-10-05; 40.00 EUR/h since 2026-09-01, 50.00 EUR/h since 2026-10-15.
  const ws = new Workspace();
  const ada = ws.user('Ada');
  const bob = ws.user('Bob');
  const work = ws.project('Work');
  ws.payee(ada, {
    name: 'Ada Payee',
    startDate: '2026-10-05',
    rates: [
      ['2026-09-01', '40.00', 'EUR'],
      ['2026-10-15', '50.00', 'EUR'],
    ],
  });
  ws.entry({ user: ada, project: work, date: '2026-10-03', seconds: 3600 }); // before the start
  ws.entry({ user: ada, project: work, date: '2026-10-05', seconds: 5400 }); // 1.5 h x 40 = 60.00
  ws.entry({ user: ada, project: work, date: '2026-10-14', seconds: 1800 }); // 0.5 h x 40 = 20.00
  ws.entry({ user: ada, project: work, date: '2026-10-15', seconds: 2700 }); // 0.75 h x 50 = 37.50
  ws.entry({ user: ada, project: work, date: '2026-10-31', seconds: 100 }); // 100 x 50 / 3600 = 1.39
  ws.entry({ user: ada, project: work, date: '2026-11-01', seconds: 3600 }); // out of range
  ws.entry({ user: ada, project: work, date: '2026-10-20', seconds: 3600, isRunning: true });
  ws.entry({ user: ada, project: work, date: '2026-10-20', seconds: 3600, deleted: true });
  ws.entry({ user: bob, project: work, date: '2026-10-10', seconds: 3600 }); // Bob has no payee

  it('costs each entry at the rate in force on its date, from the payee’s start date on', async () => {
    const data = await report(ws, 'from=2026-10-05&to=2026-10-31&userId=' + ada);
    // 60.00 + 20.00 + 37.50 + 1.39: the rate from before the start date applies from it on.
    expect(data.members[0]).toMatchObject({
      name: 'Ada Payee',
      estimatedCost: '118.89',
      compensationCost: '118.89',
      approvedCost: '0.00',
      margin: '-118.89',
      marginPercent: null,
      missingPayRate: false,
      missingMetrics: [],
      nativeAmounts: [
        { currency: 'EUR', metric: 'compensationCost', amount: '118.89' },
        { currency: 'EUR', metric: 'estimatedCost', amount: '118.89' },
      ],
    });
  });

  it('flags an entry before the payee’s start date as missing a pay rate and counts nothing for it', async () => {
    const data = await report(ws, 'from=2026-10-01&to=2026-10-31&userId=' + ada);
    expect(data.members[0]).toMatchObject({
      estimatedCost: '118.89',
      missingPayRate: true,
      missingFx: false,
      missingMetrics: ['compensationCost', 'estimatedCost'],
    });
    expect(data.missingRateCount).toBe(1);
  });

  it('flags a member without payee, named after the user, and counts both in missingRateCount', async () => {
    const data = await report(ws);
    expect(data.memberTotal).toBe(2);
    expect(data.missingRateCount).toBe(2);
    expect(data.members[1]).toMatchObject({
      userId: bob,
      payeeId: null,
      name: 'Bob',
      estimatedCost: '0.00',
      missingPayRate: true,
      clientUnbilledSeconds: 3600,
      nativeAmounts: [],
    });
    expect(data.summary).toMatchObject({
      estimatedCost: '118.89',
      missingPayRate: true,
      missingMetrics: ['compensationCost', 'estimatedCost'],
      // 3600 + 5400 + 1800 + 2700 + 100 (Ada) + 3600 (Bob): all billable, none invoiced.
      clientUnbilledSeconds: 17200,
    });
  });
});

describe('rounding (docs/contract.md, "Money and rounding": half away from zero, per entry)', () => {
  const ws = new Workspace();
  const ida = ws.user('Ida');
  const client = ws.client('Rounders');
  const project = ws.project('Cents', client);
  ws.payee(ida, { name: 'Ida', rates: [['2026-01-01', '18.00', 'EUR']] });
  // 1 s x 18.00 / 3600 = 0.005 -> 0.01, twice: 0.02 (rounding the sum would give 0.01).
  ws.entry({ user: ida, project, date: '2026-10-01', seconds: 1 });
  const e2 = ws.entry({ user: ida, project, date: '2026-10-02', seconds: 1 });
  // A credit line of -0.05 with a 10% discount: -0.05 x 0.9 = -0.045 -> -0.05 (not -0.04).
  ws.invoice(client, {
    currency: 'EUR',
    issueDate: '2026-10-05',
    subtotal: '10.00',
    discount: '1.00',
    total: '9.00',
    lines: [
      { entry: e2, amount: '-0.05' },
      { kind: 'OTHER', amount: '10.05' },
    ],
  });

  it('rounds each entry’s cost before summing, and a negative half away from zero', async () => {
    const data = await report(ws);
    expect(data.summary).toMatchObject({
      estimatedCost: '0.02',
      billedNet: '-0.05',
      margin: '-0.07',
      // -0.07 x 100 / -0.05 = 140.00
      marginPercent: '140.00',
    });
    // The unallocated line: 10.05 x 9 / 10 = 9.045 -> 9.05.
    expect(data.unallocatedRevenue).toEqual([{ currency: 'EUR', amount: '9.05' }]);
  });
});

describe('approved cost and paid (docs/contract.md, "Costs": B = the APPROVED bill of the entry)', () => {
  // Cleo, 30.00 EUR/profitability.h. Each case on its own project, so each project row shows one rule.
  const ws = new Workspace();
  const cleo = ws.user('Cleo');
  const proRata = ws.project('Pro rata');
  const notApproved = ws.project('Draft and void');
  const overpaid = ws.project('Overpaid');
  const zeroTotal = ws.project('Zero total');
  const payee = ws.payee(cleo, { name: 'Cleo', rates: [['2026-01-01', '30.00', 'EUR']] });
  const c1 = ws.entry({ user: cleo, project: proRata, date: '2026-10-02', seconds: 7200 });
  const c2 = ws.entry({ user: cleo, project: proRata, date: '2026-10-03', seconds: 3600 });
  const c3 = ws.entry({ user: cleo, project: notApproved, date: '2026-10-04', seconds: 3600 });
  const c4 = ws.entry({ user: cleo, project: notApproved, date: '2026-10-05', seconds: 3600 });
  const c5 = ws.entry({ user: cleo, project: overpaid, date: '2026-10-06', seconds: 3600 });
  const c6 = ws.entry({ user: cleo, project: zeroTotal, date: '2026-10-07', seconds: 3600 });
  // B1: 60.00 + 40.00 + an adjustment of 20.00 = 120.00, 100.00 paid (a reversed 20.00 is not).
  const b1 = ws.bill(payee, 'EUR', 'APPROVED', [
    { entry: c1, amount: '60.00' },
    { entry: c2, amount: '40.00' },
    { kind: 'ADJUSTMENT', amount: '20.00' },
  ]);
  ws.payment(payee, 'EUR', '100.00', [[b1, '100.00']]);
  ws.payment(payee, 'EUR', '20.00', [[b1, '20.00']], 'REVERSED');
  ws.bill(payee, 'EUR', 'DRAFT', [{ entry: c3, amount: '99.00' }]);
  ws.bill(payee, 'EUR', 'VOID', [{ entry: c4, amount: '99.00' }]);
  // B3: 10.00, 12.00 allocated: paid at most the line.
  const b3 = ws.bill(payee, 'EUR', 'APPROVED', [{ entry: c5, amount: '10.00' }]);
  ws.payment(payee, 'EUR', '12.00', [[b3, '12.00']]);
  // B4: 25.00 - 25.00 = 0 total: nothing is paid.
  ws.bill(payee, 'EUR', 'APPROVED', [
    { entry: c6, amount: '25.00' },
    { kind: 'ADJUSTMENT', amount: '-25.00' },
  ]);

  it('takes the line amount as approvedCost and pays it pro rata: line x amountPaid / total', async () => {
    const data = await report(ws);
    // c1: 60.00 x 100 / 120 = 50.00; c2: 40.00 x 100 / 120 = 33.333… -> 33.33.
    expect(projectRow(data, proRata)).toMatchObject({
      approvedCost: '100.00',
      estimatedCost: '0.00',
      compensationCost: '100.00',
      paid: '83.33',
      pending: '16.67',
      missingPayRate: false,
    });
  });

  it('estimates entries on DRAFT and VOID bills at the pay rate', async () => {
    const data = await report(ws);
    expect(projectRow(data, notApproved)).toMatchObject({
      approvedCost: '0.00',
      estimatedCost: '60.00',
      paid: '0.00',
      pending: '0.00',
    });
  });

  it('caps paid at the line amount when the bill is overpaid', async () => {
    const data = await report(ws);
    expect(projectRow(data, overpaid)).toMatchObject({
      approvedCost: '10.00',
      paid: '10.00',
      pending: '0.00',
    });
  });

  it('pays nothing on a bill whose total is 0', async () => {
    const data = await report(ws);
    expect(projectRow(data, zeroTotal)).toMatchObject({
      approvedCost: '25.00',
      paid: '0.00',
      pending: '25.00',
    });
  });

  it('sums the projects into the member and the summary, projects sorted by name', async () => {
    const data = await report(ws);
    const totals = {
      approvedCost: '135.00',
      estimatedCost: '60.00',
      compensationCost: '195.00',
      paid: '93.33',
      pending: '41.67',
      margin: '-195.00',
      marginPercent: null,
    };
    expect(data.members[0]).toMatchObject({ ...totals, projectCount: 4 });
    expect(data.summary).toMatchObject(totals);
    expect(data.members[0]!.projects.map((p) => p.projectName)).toEqual([
      'Draft and void',
      'Overpaid',
      'Pro rata',
      'Zero total',
    ]);
  });
});
