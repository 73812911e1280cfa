import { describe, expect, it } from 'vitest';
import { profitability } from './profitability.ts';
import {
  ADA,
  BEN,
  bill,
  billId,
  entry,
  entryId,
  id,
  PAYEE_ADA,
  payeeAda,
  rate,
  timeLine,
  workspace,
} from './reference-fixtures.ts';
import type { PaymentInput } from './reference-snapshot.ts';

/** Today is in October 2026, so the default range is 2026-10-01..2026-10-31. */
const TODAY = '2026-10-15';

/** A RECORDED EUR payment number n allocating `amount` to bill `billNo`. */
function payment(n: number, billNo: number, amount: string, fields: Partial<PaymentInput> = {}) {
  return {
    id: id(0x5000 + n),
    currency: 'EUR',
    amount,
    paidDate: '2026-10-30',
    status: 'RECORDED' as const,
    allocations: [{ billId: billId(billNo), amount }],
    ...fields,
  };
}

/** Ada's member row of the report. */
function adaRow(report: ReturnType<typeof profitability>) {
  const row = report.members.find((m) => m.userId === ADA);
  if (row === undefined) throw new Error('no row for Ada');
  return row;
}

/** Ada is paid 40.00 EUR/h from 2026-01-01 unless a test says otherwise. */
const ADA_AT_40 = payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] });

describe('profitability: range and entries (docs/contract.md, "Range and entries")', () => {
  it("defaults the range to today's calendar month, each bound on its own", () => {
    // Today 2026-02-10 -> 02-01..02-28: of 01-31, 02-01, 02-28, 03-01 only two are in,
    // 2 h x 40.00 = 80.00. With only `from` given, `to` is still the month's last day.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [
        entry(1, { entryDate: '2026-01-31' }),
        entry(2, { entryDate: '2026-02-01' }),
        entry(3, { entryDate: '2026-02-28' }),
        entry(4, { entryDate: '2026-03-01' }),
      ],
    });
    const report = profitability(snapshot, { today: '2026-02-10' });
    expect([report.from, report.to, report.summary.estimatedCost]).toEqual([
      '2026-02-01',
      '2026-02-28',
      '80.00',
    ]);
    const fromOnly = profitability(snapshot, { today: '2026-02-10', from: '2026-01-15' });
    expect([fromOnly.from, fromOnly.to, fromOnly.summary.estimatedCost]).toEqual([
      '2026-01-15',
      '2026-02-28',
      '120.00',
    ]);
    expect(profitability(snapshot, { today: '2028-02-05' }).to).toBe('2028-02-29');
  });

  it('leaves out running, deleted and out-of-range entries (a member with none has no row)', () => {
    // Only entry 1 (1 h) counts: 2 runs, 3 is deleted, 4 and 5 are outside October;
    // Ben's only entry is running.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [
        entry(1),
        entry(2, { isRunning: true }),
        entry(3, { deletedAt: '2026-10-06T00:00:00Z' }),
        entry(4, { entryDate: '2026-09-30' }),
        entry(5, { entryDate: '2026-11-01' }),
        entry(6, { userId: BEN, isRunning: true }),
      ],
    });
    const report = profitability(snapshot, { today: TODAY });
    expect(report.memberTotal).toBe(1);
    expect(adaRow(report)).toMatchObject({ estimatedCost: '40.00', clientUnbilledSeconds: 3600 });
  });
});

describe('profitability: costs (docs/contract.md, "Costs")', () => {
  it('estimates cost at the rate in effect on each entry date when the rate changes mid-range', () => {
    // 40.00 until 10-09, 50.00 from 10-10.
    // 10-09 1 h x 40.00 = 40.00; 10-10 1.5 h x 50.00 = 75.00; 10-31 0.5 h x 50.00 = 25.00.
    // estimatedCost = compensationCost = 140.00; margin = 0 - 140.00; nothing billed.
    const snapshot = workspace({
      payees: [
        payeeAda({ rates: [rate(1, '2026-01-01', '40.00'), rate(2, '2026-10-10', '50.00')] }),
      ],
      timeEntries: [
        entry(1, { entryDate: '2026-10-09' }),
        entry(2, { entryDate: '2026-10-10', durationSeconds: 5400 }),
        entry(3, { entryDate: '2026-10-31', durationSeconds: 1800, billable: false }),
      ],
    });
    const { projects, ...row } = adaRow(profitability(snapshot, { today: TODAY }));
    expect(row).toEqual({
      userId: ADA,
      payeeId: PAYEE_ADA,
      name: 'Ada L. (contractor)',
      projectId: null,
      projectName: null,
      billedNet: '0.00',
      collectedNet: '0.00',
      compensationCost: '140.00',
      approvedCost: '0.00',
      estimatedCost: '140.00',
      paid: '0.00',
      pending: '0.00',
      margin: '-140.00',
      marginPercent: null,
      clientUnbilledSeconds: 3600 + 5400,
      missingFx: false,
      missingPayRate: false,
      missingMetrics: [],
      nativeAmounts: [
        { currency: 'EUR', metric: 'compensationCost', amount: '140.00' },
        { currency: 'EUR', metric: 'estimatedCost', amount: '140.00' },
      ],
      projectCount: 1,
    });
    expect(projects).toHaveLength(1);
  });

  it("counts no cost for work before the payee's start date and flags missingPayRate", () => {
    // The payee starts 10-10 (rate 40.00 since January): 10-05 has no pay rate, 10-12
    // costs 40.00. estimatedCost (and so compensationCost) is incomplete.
    const snapshot = workspace({
      payees: [payeeAda({ startDate: '2026-10-10', rates: [rate(1, '2026-01-01', '40.00')] })],
      timeEntries: [entry(1, { entryDate: '2026-10-05' }), entry(2, { entryDate: '2026-10-12' })],
    });
    const report = profitability(snapshot, { today: TODAY });
    expect(adaRow(report)).toMatchObject({
      estimatedCost: '40.00',
      missingPayRate: true,
      missingMetrics: ['compensationCost', 'estimatedCost'],
    });
    expect(report.missingRateCount).toBe(1);
  });

  it('names a member without a payee after the user, with payeeId null and no pay rate', () => {
    const snapshot = workspace({ timeEntries: [entry(1, { userId: BEN })] });
    expect(profitability(snapshot, { today: TODAY }).members[0]).toMatchObject({
      userId: BEN,
      payeeId: null,
      name: 'Ben Okafor',
      estimatedCost: '0.00',
      missingPayRate: true,
    });
  });

  it('takes approvedCost from the APPROVED bill line, not the rate, and paid pro rata', () => {
    // Bill 1: entry 1's line 45.00 + a September entry's 55.00 = 100.00, 30.00 paid.
    // paid = 45.00 x 30.00 / 100.00 = 13.50; pending = 45.00 - 13.50 = 31.50.
    // The 40.00 rate is not used: there is no estimate for a billed entry.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1), entry(2, { entryDate: '2026-09-20' })],
      bills: [
        bill(1, { lines: [timeLine(1, entryId(1), '45.00'), timeLine(2, entryId(2), '55.00')] }),
      ],
      payments: [payment(1, 1, '30.00')],
    });
    expect(adaRow(profitability(snapshot, { today: TODAY }))).toMatchObject({
      compensationCost: '45.00',
      approvedCost: '45.00',
      estimatedCost: '0.00',
      paid: '13.50',
      pending: '31.50',
      margin: '-45.00',
      missingPayRate: false,
    });
  });

  it("rounds each entry's paid share half away from zero before summing", () => {
    // Bill 1: 10.05 (entry 1) + 9.95 (September) = 20.00, 10.00 paid: 10.05 x 0.5 = 5.025 -> 5.03.
    // Bill 2: 33.33 (entry 3) + 66.67 (September) = 100.00, 50.00 paid: 16.665 -> 16.67.
    // paid = 5.03 + 16.67 = 21.70 (rounding the sum 21.69 instead would be wrong);
    // approvedCost = 10.05 + 33.33 = 43.38; pending = 43.38 - 21.70 = 21.68.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [
        entry(1),
        entry(2, { entryDate: '2026-09-20' }),
        entry(3),
        entry(4, { entryDate: '2026-09-20' }),
      ],
      bills: [
        bill(1, { lines: [timeLine(1, entryId(1), '10.05'), timeLine(2, entryId(2), '9.95')] }),
        bill(2, { lines: [timeLine(3, entryId(3), '33.33'), timeLine(4, entryId(4), '66.67')] }),
      ],
      payments: [payment(1, 1, '10.00'), payment(2, 2, '50.00')],
    });
    expect(adaRow(profitability(snapshot, { today: TODAY }))).toMatchObject({
      approvedCost: '43.38',
      paid: '21.70',
      pending: '21.68',
    });
  });

  it('estimates work on DRAFT, VOID and deleted bills at the pay rate', () => {
    // None of the three bills is a live APPROVED bill: 3 x 1 h x 40.00 = 120.00 estimated.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1), entry(2), entry(3)],
      bills: [
        bill(1, { status: 'DRAFT', lines: [timeLine(1, entryId(1), '99.00')] }),
        bill(2, { status: 'VOID', lines: [timeLine(2, entryId(2), '99.00')] }),
        bill(3, { deletedAt: '2026-10-20T00:00:00Z', lines: [timeLine(3, entryId(3), '99.00')] }),
      ],
    });
    expect(adaRow(profitability(snapshot, { today: TODAY }))).toMatchObject({
      approvedCost: '0.00',
      estimatedCost: '120.00',
      paid: '0.00',
    });
  });

  it("lets a bill's adjustments change the share of its lines that counts as paid", () => {
    // Line 100.00 + adjustment -20.00 = total 80.00; 40.00 paid -> share 0.5:
    // paid = 100.00 x 40.00 / 80.00 = 50.00; approvedCost stays the line's 100.00.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1)],
      bills: [
        bill(1, {
          lines: [
            timeLine(1, entryId(1), '100.00'),
            { id: id(0x3301), kind: 'ADJUSTMENT', amount: '-20.00' },
          ],
        }),
      ],
      payments: [payment(1, 1, '40.00')],
    });
    expect(adaRow(profitability(snapshot, { today: TODAY }))).toMatchObject({
      approvedCost: '100.00',
      paid: '50.00',
      pending: '50.00',
    });
  });

  it('does not count a reversed payment as paid', () => {
    // 60.00 bill: 20.00 recorded, 40.00 reversed -> paid = 60.00 x 20.00 / 60.00 = 20.00.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1)],
      bills: [bill(1, { lines: [timeLine(1, entryId(1), '60.00')] })],
      payments: [payment(1, 1, '20.00'), payment(2, 1, '40.00', { status: 'REVERSED' })],
    });
    expect(adaRow(profitability(snapshot, { today: TODAY }))).toMatchObject({
      paid: '20.00',
      pending: '40.00',
    });
  });

  it('caps paid at the line amount on an overpaid bill and pays nothing on a zero total', () => {
    // Bill 1: 60.00 with 75.00 paid -> share min(1.25, 1) = 1 -> paid 60.00.
    // Bill 2: 20.00 - 20.00 adjustment = 0.00 total, 5.00 allocated -> paid 0.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1), entry(2)],
      bills: [
        bill(1, { lines: [timeLine(1, entryId(1), '60.00')] }),
        bill(2, {
          lines: [
            timeLine(2, entryId(2), '20.00'),
            { id: id(0x3302), kind: 'ADJUSTMENT', amount: '-20.00' },
          ],
        }),
      ],
      payments: [payment(1, 1, '75.00'), payment(2, 2, '5.00')],
    });
    expect(adaRow(profitability(snapshot, { today: TODAY }))).toMatchObject({
      approvedCost: '80.00',
      paid: '60.00',
      pending: '20.00',
    });
  });
});
