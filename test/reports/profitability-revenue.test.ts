import { describe, expect, it } from 'vitest';
import { projectRow, useProfitabilityReport } from '../support/profitability-report.ts';
import { Workspace } from '../support/workspace-builder.ts';

/**
 * The figures of GET /team-payouts/profitability (docs/contract.md, "Profitability" and
 * "FX conversion", test/reference choices 26-42), one rule at a time, each on a small workspace
 * built inline and worked out by hand. Every workspace goes through the real path: snapshot ->
 * PostgreSQL -> sync -> DuckDB -> HTTP. Access and query parsing are in profitability-http.test.ts.
 * This file: revenue and FX.
 */

const { report } = useProfitabilityReport();

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
