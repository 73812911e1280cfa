import { describe, expect, it } from 'vitest';
import { payoutSummary } from './payout-summary.ts';
import {
  BEN,
  bill,
  billId,
  CY,
  entry,
  entryId,
  id,
  PAYEE_BEN,
  payeeAda,
  rate,
  timeLine,
  workspace,
} from './reference-fixtures.ts';
import type { PaymentInput } from './reference-snapshot.ts';

const TODAY = '2026-11-20';
const PAYEE_CY = id(0x23);

/** A RECORDED EUR payment number n of `amount`, allocated to bill `billNo` when given. */
function payment(
  n: number,
  amount: string,
  paidDate: string,
  fields: Partial<PaymentInput> & { billNo?: number } = {},
): PaymentInput {
  const { billNo, ...rest } = fields;
  return {
    id: id(0x5000 + n),
    currency: 'EUR',
    amount,
    paidDate,
    status: 'RECORDED',
    allocations: billNo === undefined ? [] : [{ billId: billId(billNo), amount }],
    ...rest,
  };
}

const adjustment = (n: number, amount: string) => ({
  id: id(0x3300 + n),
  kind: 'ADJUSTMENT' as const,
  amount,
});

describe('payoutSummary (docs/contract.md, "Summary per currency")', () => {
  it('adds up unpaid work, approved bills, payments and credits per currency', () => {
    // Ada earns 45.00 EUR/h. Default-scope unpaid items: 10-01 5400 s = 67.50 and
    // 10-20 1800 s = 22.50 -> eligibleSeconds 7200, accrued 90.00, 10-01..10-20.
    // Entry 3 is non-billable (not in the default scope); entry 4 is on bill 1.
    // Bill 1: 100.00, due 11-15, 30.00 paid -> remaining 70.00, overdue.
    // Bill 2: 50.00 + adjustment 10.00 = 60.00, due today -> remaining 60.00, not overdue.
    // EUR: approved 160.00, paid 30.00, outstanding 130.00, overdue 70.00, credit 40.00.
    // JPY: bill 5 of 62800, fully paid. GBP: only a credit of 120.00.
    // Last payment: the JPY one on 11-12.
    const snapshot = workspace({
      payees: [
        payeeAda({
          rates: [rate(1, '2026-01-01', '45.00')],
          credits: [
            { id: id(0x61), currency: 'EUR', remaining: '40.00' },
            { id: id(0x62), currency: 'GBP', remaining: '120.00' },
          ],
        }),
      ],
      timeEntries: [
        entry(1, { entryDate: '2026-10-01', durationSeconds: 5400 }),
        entry(2, { entryDate: '2026-10-20', durationSeconds: 1800 }),
        entry(3, { entryDate: '2026-10-25', billable: false }),
        entry(4, { entryDate: '2026-09-01' }),
      ],
      bills: [
        bill(1, { dueDate: '2026-11-15', lines: [timeLine(1, entryId(4), '100.00')] }),
        bill(2, {
          dueDate: TODAY,
          lines: [timeLine(2, entryId(9), '50.00'), adjustment(2, '10.00')],
        }),
        bill(5, {
          currency: 'JPY',
          dueDate: '2026-11-01',
          lines: [timeLine(5, entryId(8), '62800')],
        }),
      ],
      payments: [
        payment(1, '30.00', '2026-11-10', { billNo: 1 }),
        payment(2, '62800', '2026-11-12', { currency: 'JPY', billNo: 5 }),
      ],
    });
    expect(payoutSummary(snapshot, { today: TODAY, canManage: true })).toEqual({
      canManage: true,
      currencies: [
        {
          currency: 'EUR',
          eligibleSeconds: 7200,
          unbilledFrom: '2026-10-01',
          unbilledTo: '2026-10-20',
          accrued: '90.00',
          approved: '160.00',
          paid: '30.00',
          outstanding: '130.00',
          overdue: '70.00',
          credit: '40.00',
        },
        {
          currency: 'GBP',
          eligibleSeconds: 0,
          unbilledFrom: null,
          unbilledTo: null,
          accrued: '0.00',
          approved: '0.00',
          paid: '0.00',
          outstanding: '0.00',
          overdue: '0.00',
          credit: '120.00',
        },
        {
          currency: 'JPY',
          eligibleSeconds: 0,
          unbilledFrom: null,
          unbilledTo: null,
          accrued: '0',
          approved: '62800',
          paid: '62800',
          outstanding: '0',
          overdue: '0',
          credit: '0',
        },
      ],
      missingRateCount: 0,
      eligibleSeconds: 7200,
      memberCount: 1,
      lastPaymentDate: '2026-11-12',
      lastPaymentAmount: '62800',
      lastPaymentCurrency: 'JPY',
    });
  });

  it('lists only currencies with unpaid work, an APPROVED bill or a live payee credit', () => {
    // A DRAFT USD bill, a VOID CHF bill and a credit of a deleted payee (SEK) add nothing;
    // a GBP credit with nothing remaining still lists GBP.
    const snapshot = workspace({
      payees: [
        payeeAda({ credits: [{ id: id(0x61), currency: 'GBP', remaining: '0.00' }] }),
        {
          id: PAYEE_BEN,
          userId: BEN,
          name: 'Ben',
          deletedAt: '2026-10-01T00:00:00Z',
          credits: [{ id: id(0x62), currency: 'SEK', remaining: '500.00' }],
        },
      ],
      bills: [
        bill(1, { status: 'DRAFT', currency: 'USD', lines: [timeLine(1, entryId(1), '10.00')] }),
        bill(2, { status: 'VOID', currency: 'CHF', lines: [timeLine(2, entryId(2), '10.00')] }),
      ],
    });
    const summary = payoutSummary(snapshot, { today: TODAY, canManage: false });
    expect(summary.currencies.map((c) => [c.currency, c.credit])).toEqual([['GBP', '0.00']]);
    expect(summary.memberCount).toBe(1);
    expect(summary.canManage).toBe(false);
  });

  it('counts as overdue only the remaining of approved bills due before today', () => {
    // Due 11-19 with 30.00 of 100.00 paid -> 70.00 overdue; due today (60.00), without a
    // due date (25.00) and due 11-01 but fully paid (0.00) add nothing to overdue.
    const snapshot = workspace({
      bills: [
        bill(1, { dueDate: '2026-11-19', lines: [timeLine(1, entryId(1), '100.00')] }),
        bill(2, { dueDate: TODAY, lines: [timeLine(2, entryId(2), '60.00')] }),
        bill(3, { dueDate: null, lines: [timeLine(3, entryId(3), '25.00')] }),
        bill(4, { dueDate: '2026-11-01', lines: [timeLine(4, entryId(4), '40.00')] }),
      ],
      payments: [
        payment(1, '30.00', '2026-11-10', { billNo: 1 }),
        payment(2, '40.00', '2026-11-10', { billNo: 4 }),
      ],
    });
    const [eur] = payoutSummary(snapshot, { today: TODAY, canManage: true }).currencies;
    expect(eur).toMatchObject({
      approved: '225.00',
      paid: '70.00',
      outstanding: '155.00',
      overdue: '70.00',
    });
  });

  it('ignores reversed payments in paid and in the last payment', () => {
    // 100.00 bill: 40.00 recorded on 11-01, 60.00 reversed on 11-15 -> paid 40.00,
    // outstanding 60.00, last payment the 40.00 one.
    const snapshot = workspace({
      bills: [bill(1, { lines: [timeLine(1, entryId(1), '100.00')] })],
      payments: [
        payment(1, '40.00', '2026-11-01', { billNo: 1 }),
        payment(2, '60.00', '2026-11-15', { billNo: 1, status: 'REVERSED' }),
      ],
    });
    const summary = payoutSummary(snapshot, { today: TODAY, canManage: true });
    expect(summary.currencies[0]).toMatchObject({ paid: '40.00', outstanding: '60.00' });
    expect(summary).toMatchObject({
      lastPaymentDate: '2026-11-01',
      lastPaymentAmount: '40.00',
      lastPaymentCurrency: 'EUR',
    });
  });

  it('picks the last payment by paidDate, then createdAt, then id', () => {
    // 5001 and 5002 share 11-12: 5001 was created later and wins. 5003 is deleted.
    const byCreatedAt = workspace({
      payments: [
        payment(1, '10.00', '2026-11-12', { createdAt: '2026-11-12T09:00:00Z' }),
        payment(2, '20.00', '2026-11-12', { createdAt: '2026-11-12T08:00:00Z' }),
        payment(3, '30.00', '2026-11-19', { deletedAt: '2026-11-19T10:00:00Z' }),
        payment(4, '40.00', '2026-11-10', { createdAt: '2026-11-13T00:00:00Z' }),
      ],
    });
    expect(payoutSummary(byCreatedAt, { today: TODAY, canManage: true }).lastPaymentAmount).toBe(
      '10.00',
    );
    // Without createdAt on one side the greater id decides: 5002.
    const byId = workspace({
      payments: [
        payment(1, '10.00', '2026-11-12', { createdAt: '2026-11-12T09:00:00Z' }),
        payment(2, '20.00', '2026-11-12'),
      ],
    });
    expect(payoutSummary(byId, { today: TODAY, canManage: true }).lastPaymentAmount).toBe('20.00');
  });

  it('has null last-payment fields and no currencies when nothing happened', () => {
    expect(payoutSummary(workspace({}), { today: TODAY, canManage: true })).toEqual({
      canManage: true,
      currencies: [],
      missingRateCount: 0,
      eligibleSeconds: 0,
      memberCount: 0,
      lastPaymentDate: null,
      lastPaymentAmount: null,
      lastPaymentCurrency: null,
    });
  });

  it('narrows currencies, eligibleSeconds and the last payment by currency, not the counts', () => {
    // Ada: 1 h at 45.00 EUR. Ben: 1 h at 6000 JPY. Cy: a payee with work but no rate.
    // Payments: EUR on 11-15, JPY (1000) on 11-10.
    const snapshot = workspace({
      payees: [
        payeeAda({ rates: [rate(1, '2026-01-01', '45.00')] }),
        { id: PAYEE_BEN, userId: BEN, name: 'Ben', rates: [rate(2, '2026-01-01', '6000', 'JPY')] },
        { id: PAYEE_CY, userId: CY, name: 'Cy' },
      ],
      timeEntries: [entry(1), entry(2, { userId: BEN }), entry(3, { userId: CY })],
      payments: [
        payment(1, '45.00', '2026-11-15'),
        payment(2, '1000', '2026-11-10', { currency: 'JPY' }),
      ],
    });
    expect(payoutSummary(snapshot, { today: TODAY, canManage: true, currency: 'JPY' })).toEqual({
      canManage: true,
      currencies: [
        {
          currency: 'JPY',
          eligibleSeconds: 3600,
          unbilledFrom: '2026-10-05',
          unbilledTo: '2026-10-05',
          accrued: '6000',
          approved: '0',
          paid: '0',
          outstanding: '0',
          overdue: '0',
          credit: '0',
        },
      ],
      missingRateCount: 1,
      eligibleSeconds: 3600,
      memberCount: 3,
      lastPaymentDate: '2026-11-10',
      lastPaymentAmount: '1000',
      lastPaymentCurrency: 'JPY',
    });
    const usd = payoutSummary(snapshot, { today: TODAY, canManage: true, currency: 'USD' });
    expect(usd).toMatchObject({ currencies: [], eligibleSeconds: 0, lastPaymentDate: null });
    expect(payoutSummary(snapshot, { today: TODAY, canManage: true }).eligibleSeconds).toBe(7200);
  });

  it('counts payees (not entries) with unpriced eligible work, billable or not', () => {
    // Ada: rate only from 10-10; two entries before it (one non-billable) -> counted once.
    // Ben: no rate, but his only entry is before his start date -> not counted.
    // Cy: no rate, but one entry is on an APPROVED bill and the other is running.
    const snapshot = workspace({
      payees: [
        payeeAda({ rates: [rate(1, '2026-10-10', '45.00')] }),
        { id: PAYEE_BEN, userId: BEN, name: 'Ben', startDate: '2026-10-10' },
        { id: PAYEE_CY, userId: CY, name: 'Cy' },
      ],
      timeEntries: [
        entry(1, { entryDate: '2026-10-05', billable: false }),
        entry(2, { entryDate: '2026-10-06' }),
        entry(3, { userId: BEN, entryDate: '2026-10-05' }),
        entry(4, { userId: CY }),
        entry(5, { userId: CY, isRunning: true }),
      ],
      bills: [bill(1, { lines: [timeLine(1, entryId(4), '10.00')] })],
    });
    const summary = payoutSummary(snapshot, { today: TODAY, canManage: true });
    expect(summary.missingRateCount).toBe(1);
    expect(summary.memberCount).toBe(3);
  });

  it('writes KWD figures with three decimals', () => {
    // 1800 s x 12.345 KWD / 3600 = 6.1725 -> 6.173 accrued; credit 1.5 -> "1.500".
    const snapshot = workspace({
      payees: [
        payeeAda({
          rates: [rate(1, '2026-01-01', '12.345', 'KWD')],
          credits: [{ id: id(0x61), currency: 'KWD', remaining: '1.5' }],
        }),
      ],
      timeEntries: [entry(1, { durationSeconds: 1800 })],
    });
    const [kwd] = payoutSummary(snapshot, { today: TODAY, canManage: true }).currencies;
    expect(kwd).toMatchObject({
      currency: 'KWD',
      accrued: '6.173',
      approved: '0.000',
      credit: '1.500',
    });
  });
});
