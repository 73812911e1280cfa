import { describe, expect, it } from 'vitest';
import { profitability } from './profitability.ts';
import {
  ADA,
  BEN,
  bill,
  entry,
  entryId,
  id,
  invoice,
  invoiceLine,
  PAYEE_BEN,
  payeeAda,
  rate,
  timeLine,
  workspace,
} from './reference-fixtures.ts';
import type { FxRateInput } from './reference-snapshot.ts';

const TODAY = '2026-10-15'; // range 2026-10-01..2026-10-31

/** FX rate number n: one unit of `from` is `rate` units of `to`. */
function fx(
  n: number,
  from: string,
  to: string,
  effectiveFrom: string,
  value: string,
): FxRateInput {
  return { id: id(0x6000 + n), fromCurrency: from, toCurrency: to, effectiveFrom, rate: value };
}

function adaRow(report: ReturnType<typeof profitability>) {
  const row = report.members.find((m) => m.userId === ADA);
  if (row === undefined) throw new Error('no row for Ada');
  return row;
}

describe('profitability: FX conversion (docs/contract.md, "FX conversion")', () => {
  it('converts each entry at the latest rate on or before its date, rounding after conversion', () => {
    // Ada is paid 10.01 USD/h. Two half hours: 1800 x 10.01 / 3600 = 5.005 -> 5.01 USD each.
    // USD->EUR 0.90 from 01-01 and 0.95 from 10-15:
    //   10-05: 5.01 x 0.90 = 4.509 -> 4.51;  10-15: 5.01 x 0.95 = 4.7595 -> 4.76.
    // estimatedCost = 4.51 + 4.76 = 9.27 EUR. The inverse EUR->USD rate and the GBP->EUR
    // rate are not listed (not usable / GBP not involved).
    const snapshot = workspace({
      payees: [payeeAda({ rates: [rate(1, '2026-01-01', '10.01', 'USD')] })],
      timeEntries: [
        entry(1, { entryDate: '2026-10-05', durationSeconds: 1800 }),
        entry(2, { entryDate: '2026-10-15', durationSeconds: 1800 }),
      ],
      fxRates: [
        fx(1, 'USD', 'EUR', '2026-01-01', '0.9000'),
        fx(2, 'USD', 'EUR', '2026-10-15', '0.95'),
        fx(3, 'USD', 'EUR', '2026-12-01', '0.97'),
        fx(4, 'EUR', 'USD', '2026-01-01', '1.1'),
        fx(5, 'GBP', 'EUR', '2026-01-01', '1.15'),
      ],
    });
    const report = profitability(snapshot, { today: TODAY });
    expect(adaRow(report)).toMatchObject({
      estimatedCost: '9.27',
      compensationCost: '9.27',
      missingFx: false,
      nativeAmounts: [
        { currency: 'USD', metric: 'compensationCost', amount: '10.02' },
        { currency: 'USD', metric: 'estimatedCost', amount: '10.02' },
      ],
    });
    const usdEur = { fromCurrency: 'USD', toCurrency: 'EUR', createdAt: null };
    expect(report.fxRates).toEqual([
      { id: id(0x6001), ...usdEur, effectiveFrom: '2026-01-01', used: true, rate: '0.9' },
      { id: id(0x6002), ...usdEur, effectiveFrom: '2026-10-15', used: true, rate: '0.95' },
      { id: id(0x6003), ...usdEur, effectiveFrom: '2026-12-01', used: false, rate: '0.97' },
    ]);
  });

  it("converts invoice amounts at the invoice's issue date, not the entry date", () => {
    // USD invoice issued 10-10 (rate 0.90; the 0.95 rate starts 10-15) for an entry of 10-20:
    // billedNet 100.00 USD x 0.90 = 90.00 EUR. Cost 1 h x 40.00 EUR.
    // margin 50.00; 50.00 x 100 / 90.00 = 55.555.. -> 55.56.
    const snapshot = workspace({
      payees: [payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] })],
      timeEntries: [entry(1, { entryDate: '2026-10-20' })],
      invoices: [
        invoice(1, {
          currency: 'USD',
          issueDate: '2026-10-10',
          subtotal: '100.00',
          total: '100.00',
          lines: [invoiceLine(1, '100.00', entryId(1))],
        }),
      ],
      fxRates: [
        fx(1, 'USD', 'EUR', '2026-01-01', '0.90'),
        fx(2, 'USD', 'EUR', '2026-10-15', '0.95'),
      ],
    });
    const report = profitability(snapshot, { today: TODAY });
    expect(adaRow(report)).toMatchObject({
      billedNet: '90.00',
      margin: '50.00',
      marginPercent: '55.56',
    });
    expect(report.fxRates.map((r) => r.used)).toEqual([true, false]);
  });

  it('leaves an amount without a rate out of the converted figure and reports it', () => {
    // Entry 1 is on an APPROVED GBP bill (line 50.00, unpaid); entry 2 costs 40.00 EUR.
    // The only GBP->EUR rate starts 11-01 and EUR->GBP is the wrong direction, so the
    // 50.00 GBP approvedCost is left out: approvedCost 0.00, compensationCost 40.00.
    // paid is 0 GBP, which needs no rate, so only approvedCost and what derives from it
    // (compensationCost, pending) are incomplete.
    const snapshot = workspace({
      payees: [payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] })],
      timeEntries: [entry(1), entry(2)],
      bills: [bill(1, { currency: 'GBP', lines: [timeLine(1, entryId(1), '50.00')] })],
      fxRates: [
        fx(1, 'GBP', 'EUR', '2026-11-01', '1.15'),
        fx(2, 'EUR', 'GBP', '2026-01-01', '0.87'),
      ],
    });
    const report = profitability(snapshot, { today: TODAY });
    const { projects: _projects, ...row } = adaRow(report);
    expect(row).toMatchObject({
      approvedCost: '0.00',
      estimatedCost: '40.00',
      compensationCost: '40.00',
      paid: '0.00',
      pending: '0.00',
      missingFx: true,
      missingPayRate: false,
      missingMetrics: ['compensationCost', 'approvedCost', 'pending'],
      nativeAmounts: [
        { currency: 'EUR', metric: 'compensationCost', amount: '40.00' },
        { currency: 'GBP', metric: 'compensationCost', amount: '50.00' },
        { currency: 'GBP', metric: 'approvedCost', amount: '50.00' },
        { currency: 'EUR', metric: 'estimatedCost', amount: '40.00' },
        { currency: 'GBP', metric: 'pending', amount: '50.00' },
      ],
    });
    expect(report.summary.missingFx).toBe(true);
    expect(report.missingFx).toEqual([
      { fromCurrency: 'GBP', toCurrency: 'EUR', amount: '50.00', metric: 'approvedCost' },
    ]);
    expect(report.fxRates.map((r) => [r.fromCurrency, r.toCurrency, r.used])).toEqual([
      ['GBP', 'EUR', false],
    ]);
  });

  it('reports the native sums of every unconverted amount per metric and currency', () => {
    // Two USD invoices without any USD rate: nets 10.00 and 20.00 (half paid each:
    // collected 5.00 and 10.00). billedNet is 0.00 in EUR, so marginPercent is null.
    const usdInvoice = (n: number) =>
      invoice(n, {
        currency: 'USD',
        subtotal: `${n}0.00`,
        total: `${n}0.00`,
        amountPaid: `${n * 5}.00`,
        lines: [invoiceLine(n, `${n}0.00`, entryId(n))],
      });
    const snapshot = workspace({
      payees: [payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] })],
      timeEntries: [entry(1), entry(2)],
      invoices: [usdInvoice(1), usdInvoice(2)],
    });
    const report = profitability(snapshot, { today: TODAY });
    expect(report.missingFx).toEqual([
      { fromCurrency: 'USD', toCurrency: 'EUR', amount: '30.00', metric: 'billedNet' },
      { fromCurrency: 'USD', toCurrency: 'EUR', amount: '15.00', metric: 'collectedNet' },
    ]);
    expect(report.summary).toMatchObject({
      billedNet: '0.00',
      marginPercent: null,
      missingMetrics: ['billedNet', 'collectedNet'],
    });
    expect(report.fxRates).toEqual([]);
  });

  it('rounds to a JPY base with no decimals and keeps KWD amounts at three', () => {
    // Base JPY. Ada: 12.345 KWD/h, two half hours: 6.1725 -> 6.173 KWD each;
    // KWD->JPY 486.5: 6.173 x 486.5 = 3003.1645 -> 3003 each -> 6006.
    // Ben: 1.00 EUR/h, 1 h = 1.00 EUR; EUR->JPY 160.5: 160.5 -> 161 (half away from zero).
    const snapshot = workspace({
      baseCurrency: 'JPY',
      payees: [
        payeeAda({ rates: [rate(1, '2026-01-01', '12.345', 'KWD')] }),
        { id: PAYEE_BEN, userId: BEN, name: 'Ben', rates: [rate(2, '2026-01-01', '1.00')] },
      ],
      timeEntries: [
        entry(1, { durationSeconds: 1800 }),
        entry(2, { durationSeconds: 1800 }),
        entry(3, { userId: BEN }),
      ],
      fxRates: [
        fx(1, 'KWD', 'JPY', '2026-01-01', '486.5'),
        fx(2, 'EUR', 'JPY', '2026-01-01', '160.5'),
      ],
    });
    const report = profitability(snapshot, { today: TODAY });
    expect(report.members.map((m) => [m.name, m.estimatedCost, m.margin])).toEqual([
      ['Ada L. (contractor)', '6006', '-6006'],
      ['Ben', '161', '-161'],
    ]);
    expect(report.summary).toMatchObject({
      estimatedCost: '6167',
      billedNet: '0',
      nativeAmounts: [
        { currency: 'EUR', metric: 'compensationCost', amount: '1.00' },
        { currency: 'KWD', metric: 'compensationCost', amount: '12.346' },
        { currency: 'EUR', metric: 'estimatedCost', amount: '1.00' },
        { currency: 'KWD', metric: 'estimatedCost', amount: '12.346' },
      ],
    });
  });
});
