import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { Workspace, workspaces } from '../support/workspace-builder.ts';

/**
 * The figures of GET /team-payouts/profitability (docs/contract.md, "Profitability" and
 * "FX conversion", test/reference choices 26-42), one rule at a time, each on a small workspace
 * built inline and worked out by hand. Every workspace goes through the real path: snapshot ->
 * PostgreSQL -> sync -> DuckDB -> HTTP. Access and query parsing are in profitability-http.test.ts.
 */

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  for (const ws of workspaces) await h.importObject(ws.snapshot);
  await h.sync();
});
afterAll(() => h.close());

interface Row {
  userId: string | null;
  payeeId: string | null;
  name: string | null;
  projectId: string | null;
  projectName: string | null;
  [metric: string]: unknown;
}
interface Member extends Row {
  projectCount: number;
  projects: Row[];
}
interface Report {
  from: string;
  to: string;
  memberTotal: number;
  missingRateCount: number;
  summary: Row;
  members: Member[];
  [field: string]: unknown;
}

async function report(ws: Workspace, query = 'from=2026-10-01&to=2026-10-31'): Promise<Report> {
  const res = await h.app.inject({
    method: 'GET',
    url: `/api/v1/team-payouts/profitability?${query}`,
    headers: { authorization: `Bearer ${ws.token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: Report }>().data;
}

const projectRow = (data: Report, projectId: string) => {
  const row = data.members.flatMap((m) => m.projects).find((p) => p.projectId === projectId);
  if (!row) throw new Error(`no row for project ${projectId}`);
  return row;
};

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
  // Cleo, 30.00 EUR/h. Each case on its own project, so each project row shows one rule.
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

describe('revenue (docs/contract.md, "Revenue": billedNet, collectedNet, clientUnbilledSeconds, receipts)', () => {
  const ws = new Workspace();
  const dan = ws.user('Dan');
  const acme = ws.client('Acme', 'EUR');
  const globex = ws.client('Globex', 'USD');
  const site = ws.project('Site', acme);
  const shop = ws.project('Shop', globex);
  ws.payee(dan, { name: 'Dan', rates: [['2026-01-01', '10.00', 'EUR']] });
  const d1 = ws.entry({ user: dan, project: site, date: '2026-10-01', seconds: 3600 });
  const d2 = ws.entry({ user: dan, project: site, date: '2026-10-02', seconds: 1800 });
  const d3 = ws.entry({ user: dan, project: site, date: '2026-10-03', seconds: 3600 });
  const d4 = ws.entry({ user: dan, project: site, date: '2026-10-04', seconds: 900 });
  const d5 = ws.entry({ user: dan, project: site, date: '2026-10-05', seconds: 600 });
  ws.entry({ user: dan, project: site, date: '2026-10-06', seconds: 1200, billable: false });
  const d7 = ws.entry({ user: dan, project: site, date: '2026-10-07', seconds: 300 });
  const d8 = ws.entry({ user: dan, project: site, date: '2026-10-08', seconds: 700 });
  // I1: 200.00 - 20.00 discount, + 10% tax = 198.00, 99.00 paid (half).
  ws.invoice(acme, {
    currency: 'EUR',
    issueDate: '2026-10-10',
    subtotal: '200.00',
    discount: '20.00',
    total: '198.00',
    paid: '99.00',
    lines: [
      { entry: d1, amount: '150.00' }, // net 150 x 180 / 200 = 135.00, collected 67.50
      { entry: d2, amount: '50.00' }, // net 45.00, collected 22.50
    ],
  });
  // I2: paid 120.00 of 100.00: collected capped at the net; 20.00 unreconciled.
  ws.invoice(acme, {
    currency: 'EUR',
    status: 'PAID',
    issueDate: '2026-10-11',
    subtotal: '100.00',
    total: '100.00',
    paid: '120.00',
    lines: [{ entry: d3, amount: '100.00' }],
  });
  // A DRAFT line and a CANCELLED line do not bill: d4 and d5 stay client-unbilled.
  ws.invoice(acme, {
    currency: 'EUR',
    status: 'DRAFT',
    issueDate: '2026-10-12',
    subtotal: '15.00',
    total: '15.00',
    lines: [{ entry: d4, amount: '15.00' }],
  });
  ws.invoice(acme, {
    currency: 'EUR',
    status: 'CANCELLED',
    issueDate: '2026-10-13',
    subtotal: '10.00',
    total: '10.00',
    paid: '30.00', // unreconciled in full
    lines: [{ entry: d5, amount: '10.00' }],
  });
  // I5: subtotal 0 (40.00 - 40.00): each line's net is its amount; total 0: nothing collected.
  ws.invoice(acme, {
    currency: 'EUR',
    issueDate: '2026-10-14',
    subtotal: '0.00',
    total: '0.00',
    lines: [
      { entry: d7, amount: '40.00' },
      { kind: 'OTHER', project: site, amount: '-40.00' },
    ],
  });
  // A deleted SENT invoice bills nothing: d8 stays client-unbilled.
  ws.invoice(acme, {
    currency: 'EUR',
    issueDate: '2026-10-15',
    subtotal: '7.00',
    total: '7.00',
    paid: '50.00',
    lines: [{ entry: d8, amount: '7.00' }],
    deleted: true,
  });
  // Globex, USD: a line on no entry, net 300 x 270 / 300 = 270.00; 30.00 paid over the total.
  ws.invoice(globex, {
    currency: 'USD',
    issueDate: '2026-10-20',
    subtotal: '300.00',
    discount: '30.00',
    total: '270.00',
    paid: '300.00',
    lines: [{ kind: 'FIXED_FEE', project: shop, amount: '300.00' }],
  });
  // Issued after the range: counts nowhere.
  ws.invoice(globex, {
    currency: 'USD',
    issueDate: '2026-11-02',
    subtotal: '50.00',
    total: '50.00',
    paid: '80.00',
    lines: [{ kind: 'OTHER', amount: '50.00' }],
  });

  it('nets each invoice line of its discount and collects it pro rata, capped', async () => {
    const data = await report(ws);
    // billed 135.00 + 45.00 + 100.00 + 40.00; collected 67.50 + 22.50 + 100.00 + 0.00.
    expect(projectRow(data, site)).toMatchObject({
      billedNet: '320.00',
      collectedNet: '190.00',
      nativeAmounts: expect.arrayContaining([
        { currency: 'EUR', metric: 'billedNet', amount: '320.00' },
        { currency: 'EUR', metric: 'collectedNet', amount: '190.00' },
      ]),
    });
  });

  it('counts billable seconds on no SENT or PAID invoice line as client-unbilled', async () => {
    const data = await report(ws);
    // d4 (DRAFT) 900 + d5 (CANCELLED) 600 + d8 (deleted invoice) 700; d6 is not billable.
    expect(projectRow(data, site).clientUnbilledSeconds).toBe(2200);
  });

  it('lists unallocated revenue and unreconciled receipts per currency, in range', async () => {
    const data = await report(ws);
    expect(data.unallocatedRevenue).toEqual([
      { currency: 'EUR', amount: '-40.00' },
      { currency: 'USD', amount: '270.00' },
    ]);
    expect(data.unreconciledReceipts).toEqual([
      { currency: 'EUR', amount: '50.00' },
      { currency: 'USD', amount: '30.00' },
    ]);
  });

  it('narrows both to the client with clientId', async () => {
    const data = await report(ws, `from=2026-10-01&to=2026-10-31&clientId=${globex}`);
    expect(data.memberTotal).toBe(0);
    expect(data.members).toEqual([]);
    expect(data.unallocatedRevenue).toEqual([{ currency: 'USD', amount: '270.00' }]);
    expect(data.unreconciledReceipts).toEqual([{ currency: 'USD', amount: '30.00' }]);
  });

  it('narrows unallocated revenue to the line’s project with projectId, and has no receipts', async () => {
    const data = await report(ws, `from=2026-10-01&to=2026-10-31&projectId=${site}`);
    expect(data.unallocatedRevenue).toEqual([{ currency: 'EUR', amount: '-40.00' }]);
    expect(data.unreconciledReceipts).toEqual([]);
    expect(data.memberTotal).toBe(1);
  });

  it('has neither under userId', async () => {
    const data = await report(ws, `from=2026-10-01&to=2026-10-31&userId=${dan}`);
    expect(data.unallocatedRevenue).toEqual([]);
    expect(data.unreconciledReceipts).toEqual([]);
    expect(data.summary.billedNet).toBe('320.00');
  });
});

describe('FX (docs/contract.md, "FX conversion")', () => {
  // Base EUR. USD -> EUR 0.90 from 2026-10-01, 0.80 from 2026-10-16; JPY -> EUR 0.0062;
  // KWD -> EUR and GBP -> EUR only after the range.
  const ws = new Workspace();
  const eve = ws.user('Eve');
  const finn = ws.user('Finn');
  const us = ws.client('US', 'USD');
  const jp = ws.client('JP', 'JPY');
  const kw = ws.client('KW', 'KWD');
  const work = ws.project('Work', us);
  ws.payee(eve, { name: 'Eve', rates: [['2026-01-01', '100.00', 'USD']] });
  const finnPayee = ws.payee(finn, { name: 'Finn', rates: [['2026-01-01', '20.00', 'GBP']] });
  const usdEarly = ws.fx('USD', 'EUR', '2026-10-01', '0.9000');
  const usdLate = ws.fx('USD', 'EUR', '2026-10-16', '0.8');
  ws.fx('USD', 'EUR', '2026-10-10', '5', true); // deleted: never applies
  const jpy = ws.fx('JPY', 'EUR', '2026-10-01', '0.0062');
  const kwd = ws.fx('KWD', 'EUR', '2026-12-01', '3.25');
  const gbp = ws.fx('GBP', 'EUR', '2026-11-01', '1.15');
  ws.fx('EUR', 'USD', '2026-10-01', '1.10'); // the other direction: never used, not listed
  ws.fx('CHF', 'EUR', '2026-10-01', '1.05'); // no CHF amount: not listed
  // Estimated 100.00 USD each, at the entry date: 90.00 and 80.00 EUR.
  const f1 = ws.entry({ user: eve, project: work, date: '2026-10-10', seconds: 3600 });
  const f2 = ws.entry({ user: eve, project: work, date: '2026-10-20', seconds: 3600 });
  // Billed at the invoice's issue date (0.80), not f1's date (0.90): 100.00 x 0.8 = 80.00.
  ws.invoice(us, {
    currency: 'USD',
    issueDate: '2026-10-20',
    subtotal: '100.00',
    total: '100.00',
    lines: [{ entry: f1, amount: '100.00' }],
  });
  // JPY, whole yen: 10001 x (12345 - 1000) / 12345 = 9190.87… -> 9191 JPY -> x 0.0062 =
  // 56.9842 -> 56.98 EUR; paid in full. The other line, 2344 -> 2154.13… -> 2154, is unallocated.
  ws.invoice(jp, {
    currency: 'JPY',
    issueDate: '2026-10-12',
    subtotal: '12345',
    discount: '1000',
    total: '11345',
    paid: '11345',
    lines: [
      { entry: f2, amount: '10001' },
      { kind: 'OTHER', amount: '2344' },
    ],
  });
  // KWD, three decimals, no rate at the issue date: left out, reported.
  ws.invoice(kw, {
    currency: 'KWD',
    issueDate: '2026-10-25',
    subtotal: '12.345',
    total: '12.345',
    lines: [{ entry: f1, amount: '12.345' }],
  });
  // Finn: 20.00 GBP estimated and an approved GBP bill of 15.00, paid: no GBP rate in range.
  ws.entry({ user: finn, project: work, date: '2026-10-10', seconds: 3600 });
  const f4 = ws.entry({ user: finn, project: work, date: '2026-10-11', seconds: 1800 });
  const bill = ws.bill(finnPayee, 'GBP', 'APPROVED', [{ entry: f4, amount: '15.00' }]);
  ws.payment(finnPayee, 'GBP', '15.00', [[bill, '15.00']]);

  it('converts costs at the entry date and revenue at the issue date, rounding each amount', async () => {
    const data = await report(ws, `from=2026-10-01&to=2026-10-31&userId=${eve}`);
    // billed 80.00 + 56.98 = 136.98; margin 136.98 - 170.00 = -33.02;
    // marginPercent -33.02 x 100 / 136.98 = -24.105… -> -24.11.
    expect(data.members[0]).toMatchObject({
      estimatedCost: '170.00',
      billedNet: '136.98',
      collectedNet: '56.98',
      margin: '-33.02',
      marginPercent: '-24.11',
      missingFx: true,
      missingMetrics: ['billedNet'],
      nativeAmounts: [
        { currency: 'JPY', metric: 'billedNet', amount: '9191' },
        { currency: 'KWD', metric: 'billedNet', amount: '12.345' },
        { currency: 'USD', metric: 'billedNet', amount: '100.00' },
        { currency: 'JPY', metric: 'collectedNet', amount: '9191' },
        { currency: 'USD', metric: 'compensationCost', amount: '200.00' },
        { currency: 'USD', metric: 'estimatedCost', amount: '200.00' },
      ],
    });
  });

  it('marks costs without a rate, and the derived metrics they make incomplete', async () => {
    const data = await report(ws, `from=2026-10-01&to=2026-10-31&userId=${finn}`);
    expect(data.members[0]).toMatchObject({
      approvedCost: '0.00',
      estimatedCost: '0.00',
      paid: '0.00',
      missingFx: true,
      missingPayRate: false,
      missingMetrics: ['compensationCost', 'approvedCost', 'estimatedCost', 'paid', 'pending'],
      nativeAmounts: [
        { currency: 'GBP', metric: 'compensationCost', amount: '35.00' },
        { currency: 'GBP', metric: 'approvedCost', amount: '15.00' },
        { currency: 'GBP', metric: 'estimatedCost', amount: '20.00' },
        { currency: 'GBP', metric: 'paid', amount: '15.00' },
      ],
    });
  });

  it('lists what was left unconverted, per metric and currency', async () => {
    const data = await report(ws);
    expect(data.missingFx).toEqual([
      { fromCurrency: 'KWD', toCurrency: 'EUR', amount: '12.345', metric: 'billedNet' },
      { fromCurrency: 'GBP', toCurrency: 'EUR', amount: '15.00', metric: 'approvedCost' },
      { fromCurrency: 'GBP', toCurrency: 'EUR', amount: '20.00', metric: 'estimatedCost' },
      { fromCurrency: 'GBP', toCurrency: 'EUR', amount: '15.00', metric: 'paid' },
    ]);
    expect(data.summary).toMatchObject({
      missingFx: true,
      missingMetrics: [
        'billedNet',
        'compensationCost',
        'approvedCost',
        'estimatedCost',
        'paid',
        'pending',
      ],
    });
  });

  it('lists the rates of the currencies involved, used or not, without trailing zeros', async () => {
    const data = await report(ws);
    const rate = (id: string, from: string, effectiveFrom: string, r: string, used: boolean) => ({
      id,
      fromCurrency: from,
      toCurrency: 'EUR',
      effectiveFrom,
      createdAt: expect.any(String),
      used,
      rate: r,
    });
    expect(data.fxRates).toEqual([
      rate(gbp, 'GBP', '2026-11-01', '1.15', false),
      rate(jpy, 'JPY', '2026-10-01', '0.0062', true),
      rate(kwd, 'KWD', '2026-12-01', '3.25', false),
      rate(usdEarly, 'USD', '2026-10-01', '0.9', true),
      rate(usdLate, 'USD', '2026-10-16', '0.8', true),
    ]);
  });

  it('keeps native amounts in their currency’s scale: JPY none, KWD three', async () => {
    const data = await report(ws);
    expect(data.unallocatedRevenue).toEqual([{ currency: 'JPY', amount: '2154' }]);
  });
});

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
    const duck = await h.readModel.connect();
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
