import { Dec, dec, formatMoney, roundMoney, sum, ZERO } from './reference-money.ts';
import { isLive, type BillInput, type SnapshotInput } from './reference-snapshot.ts';

export type BillPaymentStatus = 'UNPAID' | 'PARTIALLY_PAID' | 'PAID';

/** The derived amounts of one team bill, as the API's bill record shows them. */
export interface BillFigures {
  subtotal: string;
  adjustmentTotal: string;
  total: string;
  amountPaid: string;
  remaining: string;
  paymentStatus: BillPaymentStatus;
}

/** The same figures as decimals, for the reports built on them. */
export interface BillAmounts {
  bill: BillInput;
  subtotal: Dec;
  adjustmentTotal: Dec;
  total: Dec;
  amountPaid: Dec;
  remaining: Dec;
  paymentStatus: BillPaymentStatus;
}

/**
 * docs/contract.md, "Bill amounts", for every bill of the snapshot, deleted ones included (their
 * record still has figures; the reports leave deleted bills out).
 */
export function billAmounts(snapshot: SnapshotInput): Map<string, BillAmounts> {
  const allocated = new Map<string, Dec[]>();
  for (const payment of snapshot.payments ?? []) {
    // Only a live RECORDED payment pays: a reversed or deleted one is as if never made.
    if (payment.status !== 'RECORDED' || !isLive(payment)) continue;
    for (const a of payment.allocations ?? []) {
      allocated.set(a.billId, [...(allocated.get(a.billId) ?? []), dec(a.amount)]);
    }
  }
  const result = new Map<string, BillAmounts>();
  for (const bill of snapshot.bills ?? []) {
    const lines = bill.lines ?? [];
    const linesOf = (kinds: readonly string[]) =>
      sum(lines.filter((l) => kinds.includes(l.kind)).map((l) => dec(l.amount)));
    const subtotal = roundMoney(linesOf(['TIME', 'EXPENSE']), bill.currency);
    const adjustmentTotal = roundMoney(linesOf(['ADJUSTMENT']), bill.currency);
    const total = subtotal.plus(adjustmentTotal);
    const amountPaid = roundMoney(sum(allocated.get(bill.id) ?? []), bill.currency);
    const remaining = bill.status === 'VOID' ? ZERO : Dec.max(total.minus(amountPaid), ZERO);
    const paymentStatus: BillPaymentStatus =
      total.greaterThan(0) && amountPaid.greaterThanOrEqualTo(total)
        ? 'PAID'
        : amountPaid.greaterThan(0)
          ? 'PARTIALLY_PAID'
          : 'UNPAID';
    result.set(bill.id, {
      bill,
      subtotal,
      adjustmentTotal,
      total,
      amountPaid,
      remaining,
      paymentStatus,
    });
  }
  return result;
}

/** `billFigures(snapshot)[billId]` = the bill's derived amounts, money at the bill's scale. */
export function billFigures(snapshot: SnapshotInput): Record<string, BillFigures> {
  const figures: Record<string, BillFigures> = {};
  for (const [id, a] of billAmounts(snapshot)) {
    const c = a.bill.currency;
    figures[id] = {
      subtotal: formatMoney(a.subtotal, c),
      adjustmentTotal: formatMoney(a.adjustmentTotal, c),
      total: formatMoney(a.total, c),
      amountPaid: formatMoney(a.amountPaid, c),
      remaining: formatMoney(a.remaining, c),
      paymentStatus: a.paymentStatus,
    };
  }
  return figures;
}
