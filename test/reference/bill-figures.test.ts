import { describe, expect, it } from 'vitest';
import { billFigures } from './bill-figures.ts';
import { bill, billId, entryId, id, timeLine, workspace } from './reference-fixtures.ts';
import type { PaymentInput } from './reference-snapshot.ts';

/** A EUR payment number n, paid 2026-11-10, allocating `amount` to bill number `billNo`. */
function payment(n: number, billNo: number, amount: string, fields: Partial<PaymentInput> = {}) {
  return {
    id: id(0x5000 + n),
    currency: 'EUR',
    amount,
    paidDate: '2026-11-10',
    status: 'RECORDED' as const,
    allocations: [{ billId: billId(billNo), amount }],
    ...fields,
  };
}

describe('billFigures (docs/contract.md, "Bill amounts")', () => {
  it('sums TIME and EXPENSE lines into subtotal and ADJUSTMENT lines into adjustmentTotal', () => {
    // subtotal = 67.50 + 12.30 = 79.80; adjustmentTotal = -10.00 + 2.50 = -7.50;
    // total = 79.80 - 7.50 = 72.30; nothing paid.
    const snapshot = workspace({
      bills: [
        bill(1, {
          lines: [
            timeLine(1, entryId(1), '67.50'),
            { id: id(0x3201), kind: 'EXPENSE', amount: '12.30' },
            { id: id(0x3202), kind: 'ADJUSTMENT', amount: '-10.00' },
            { id: id(0x3203), kind: 'ADJUSTMENT', amount: '2.50' },
          ],
        }),
      ],
    });
    expect(billFigures(snapshot)[billId(1)]).toEqual({
      subtotal: '79.80',
      adjustmentTotal: '-7.50',
      total: '72.30',
      amountPaid: '0.00',
      remaining: '72.30',
      paymentStatus: 'UNPAID',
    });
  });

  it('counts only allocations of live RECORDED payments (not reversed, not deleted ones)', () => {
    // total 100.00; recorded 30.00 counts, reversed 50.00 and deleted 20.00 do not:
    // amountPaid 30.00, remaining 70.00.
    const snapshot = workspace({
      bills: [bill(1, { lines: [timeLine(1, entryId(1), '100.00')] })],
      payments: [
        payment(1, 1, '30.00'),
        payment(2, 1, '50.00', { status: 'REVERSED' }),
        payment(3, 1, '20.00', { deletedAt: '2026-11-12T00:00:00Z' }),
      ],
    });
    expect(billFigures(snapshot)[billId(1)]).toMatchObject({
      amountPaid: '30.00',
      remaining: '70.00',
      paymentStatus: 'PARTIALLY_PAID',
    });
  });

  it('is PAID once amountPaid reaches total, and an overpaid bill has nothing remaining', () => {
    // Bill 1: 50.00 paid with 50.00. Bill 2: 50.00 paid with 40.00 + 20.00 = 60.00,
    // remaining max(50.00 - 60.00, 0) = 0.00.
    const snapshot = workspace({
      bills: [
        bill(1, { lines: [timeLine(1, entryId(1), '50.00')] }),
        bill(2, { lines: [timeLine(2, entryId(2), '50.00')] }),
      ],
      payments: [payment(1, 1, '50.00'), payment(2, 2, '40.00'), payment(3, 2, '20.00')],
    });
    const figures = billFigures(snapshot);
    expect(figures[billId(1)]).toMatchObject({
      amountPaid: '50.00',
      remaining: '0.00',
      paymentStatus: 'PAID',
    });
    expect(figures[billId(2)]).toMatchObject({
      amountPaid: '60.00',
      remaining: '0.00',
      paymentStatus: 'PAID',
    });
  });

  it('gives a VOID bill its amounts but nothing remaining; a DRAFT bill keeps its remaining', () => {
    // VOID: total 80.00, 30.00 allocated -> remaining forced to 0.00, status by the formula.
    // DRAFT: total 80.00, nothing paid -> remaining 80.00.
    const snapshot = workspace({
      bills: [
        bill(1, { status: 'VOID', lines: [timeLine(1, entryId(1), '80.00')] }),
        bill(2, { status: 'DRAFT', lines: [timeLine(2, entryId(2), '80.00')] }),
      ],
      payments: [payment(1, 1, '30.00')],
    });
    const figures = billFigures(snapshot);
    expect(figures[billId(1)]).toEqual({
      subtotal: '80.00',
      adjustmentTotal: '0.00',
      total: '80.00',
      amountPaid: '30.00',
      remaining: '0.00',
      paymentStatus: 'PARTIALLY_PAID',
    });
    expect(figures[billId(2)]).toMatchObject({ remaining: '80.00', paymentStatus: 'UNPAID' });
  });

  it('never calls a zero-total bill PAID', () => {
    // Both bills: 20.00 of time, adjusted by -20.00 -> total 0.00. Bill 2 has 5.00 allocated:
    // PARTIALLY_PAID (amountPaid > 0) with remaining max(0.00 - 5.00, 0) = 0.00.
    const lines = (n: number) => [
      timeLine(n, entryId(n), '20.00'),
      { id: id(0x3300 + n), kind: 'ADJUSTMENT' as const, amount: '-20.00' },
    ];
    const snapshot = workspace({
      bills: [bill(1, { lines: lines(1) }), bill(2, { lines: lines(2) })],
      payments: [payment(1, 2, '5.00')],
    });
    const figures = billFigures(snapshot);
    expect(figures[billId(1)]).toMatchObject({ total: '0.00', paymentStatus: 'UNPAID' });
    expect(figures[billId(2)]).toMatchObject({
      total: '0.00',
      amountPaid: '5.00',
      remaining: '0.00',
      paymentStatus: 'PARTIALLY_PAID',
    });
  });

  it('writes JPY amounts with no decimals and KWD amounts with three', () => {
    // JPY: 62800 - 800 = 62000, 30000 paid -> 32000 remaining.
    // KWD: 12.345 + 1.5 = 13.845, no adjustment -> "0.000".
    const snapshot = workspace({
      bills: [
        bill(1, {
          currency: 'JPY',
          lines: [
            timeLine(1, entryId(1), '62800'),
            { id: id(0x3201), kind: 'ADJUSTMENT', amount: '-800' },
          ],
        }),
        bill(2, {
          currency: 'KWD',
          lines: [
            timeLine(2, entryId(2), '12.345'),
            { id: id(0x3202), kind: 'EXPENSE', amount: '1.5' },
          ],
        }),
      ],
      payments: [payment(1, 1, '30000', { currency: 'JPY' })],
    });
    const figures = billFigures(snapshot);
    expect(figures[billId(1)]).toEqual({
      subtotal: '62800',
      adjustmentTotal: '-800',
      total: '62000',
      amountPaid: '30000',
      remaining: '32000',
      paymentStatus: 'PARTIALLY_PAID',
    });
    expect(figures[billId(2)]).toEqual({
      subtotal: '13.845',
      adjustmentTotal: '0.000',
      total: '13.845',
      amountPaid: '0.000',
      remaining: '13.845',
      paymentStatus: 'UNPAID',
    });
  });
});
