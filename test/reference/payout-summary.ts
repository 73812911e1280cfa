import { billAmounts } from './bill-figures.ts';
import { type Dec, dec, formatMoney, ZERO } from './reference-money.ts';
import {
  compareText,
  isLive,
  type PaymentInput,
  type SnapshotInput,
} from './reference-snapshot.ts';
import { livePayeesByUser, unbilledWork } from './pay-rates.ts';
import { unpaidTimeItems } from './unpaid-time.ts';

/** One entry of the summary's `currencies`. */
export interface PayoutCurrencySummary {
  currency: string;
  eligibleSeconds: number;
  unbilledFrom: string | null;
  unbilledTo: string | null;
  accrued: string;
  approved: string;
  paid: string;
  outstanding: string;
  overdue: string;
  credit: string;
}

/** The API's "Team payout summary" (`data`). */
export interface PayoutSummary {
  canManage: boolean;
  currencies: PayoutCurrencySummary[];
  missingRateCount: number;
  eligibleSeconds: number;
  memberCount: number;
  lastPaymentDate: string | null;
  lastPaymentAmount: string | null;
  lastPaymentCurrency: string | null;
}

export interface PayoutSummaryQuery {
  /** Today in the workspace's time zone: bills due before it are overdue. */
  today: string;
  /** Narrows currencies[], eligibleSeconds and lastPayment* to this currency. */
  currency?: string;
  /** Passed through: the caller is Owner or Admin with `write`. */
  canManage: boolean;
}

interface Totals {
  eligibleSeconds: number;
  unbilledFrom: string | null;
  unbilledTo: string | null;
  accrued: Dec;
  approved: Dec;
  paid: Dec;
  outstanding: Dec;
  overdue: Dec;
  credit: Dec;
}

/** docs/contract.md, "Summary per currency" and "Summary totals". */
export function payoutSummary(snapshot: SnapshotInput, query: PayoutSummaryQuery): PayoutSummary {
  const wanted = (currency: string) => query.currency === undefined || currency === query.currency;
  const byCurrency = new Map<string, Totals>();
  const totalsOf = (currency: string): Totals => {
    let t = byCurrency.get(currency);
    if (t === undefined) {
      t = {
        eligibleSeconds: 0,
        unbilledFrom: null,
        unbilledTo: null,
        accrued: ZERO,
        approved: ZERO,
        paid: ZERO,
        outstanding: ZERO,
        overdue: ZERO,
        credit: ZERO,
      };
      byCurrency.set(currency, t);
    }
    return t;
  };

  for (const item of unpaidTimeItems(snapshot, { scope: 'default' })) {
    if (!wanted(item.currency)) continue;
    const t = totalsOf(item.currency);
    t.eligibleSeconds += item.durationSeconds;
    t.accrued = t.accrued.plus(dec(item.amount));
    if (t.unbilledFrom === null || item.workDate < t.unbilledFrom) t.unbilledFrom = item.workDate;
    if (t.unbilledTo === null || item.workDate > t.unbilledTo) t.unbilledTo = item.workDate;
  }
  for (const a of billAmounts(snapshot).values()) {
    if (a.bill.status !== 'APPROVED' || !isLive(a.bill) || !wanted(a.bill.currency)) continue;
    const t = totalsOf(a.bill.currency);
    t.approved = t.approved.plus(a.total);
    t.paid = t.paid.plus(a.amountPaid);
    t.outstanding = t.outstanding.plus(a.remaining);
    const due = a.bill.dueDate;
    if (due !== undefined && due !== null && due < query.today) {
      t.overdue = t.overdue.plus(a.remaining);
    }
  }
  const payees = [...livePayeesByUser(snapshot).values()];
  for (const payee of payees) {
    for (const credit of payee.credits ?? []) {
      if (!wanted(credit.currency)) continue;
      const t = totalsOf(credit.currency);
      t.credit = t.credit.plus(dec(credit.remaining));
    }
  }

  const currencies = [...byCurrency.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([currency, t]) => ({
      currency,
      eligibleSeconds: t.eligibleSeconds,
      unbilledFrom: t.unbilledFrom,
      unbilledTo: t.unbilledTo,
      accrued: formatMoney(t.accrued, currency),
      approved: formatMoney(t.approved, currency),
      paid: formatMoney(t.paid, currency),
      outstanding: formatMoney(t.outstanding, currency),
      overdue: formatMoney(t.overdue, currency),
      credit: formatMoney(t.credit, currency),
    }));

  const unpriced = new Set(
    unbilledWork(snapshot)
      .filter((w) => w.rate === undefined)
      .map((w) => w.payee.id),
  );
  const last = latestPayment((snapshot.payments ?? []).filter((p) => wanted(p.currency)));
  return {
    canManage: query.canManage,
    currencies,
    missingRateCount: unpriced.size,
    eligibleSeconds: currencies.reduce((s, c) => s + c.eligibleSeconds, 0),
    memberCount: payees.length,
    lastPaymentDate: last?.paidDate ?? null,
    lastPaymentAmount: last === undefined ? null : formatMoney(dec(last.amount), last.currency),
    lastPaymentCurrency: last?.currency ?? null,
  };
}

/**
 * The latest live RECORDED payment: greatest paidDate, then createdAt, then id. A missing
 * createdAt (on either side) compares equal, so the id decides.
 */
function latestPayment(payments: readonly PaymentInput[]): PaymentInput | undefined {
  let best: PaymentInput | undefined;
  for (const p of payments) {
    if (p.status !== 'RECORDED' || !isLive(p)) continue;
    if (best === undefined || comparePayments(p, best) > 0) best = p;
  }
  return best;
}

function comparePayments(a: PaymentInput, b: PaymentInput): number {
  if (a.paidDate !== b.paidDate) return a.paidDate < b.paidDate ? -1 : 1;
  const ta = a.createdAt ? Date.parse(a.createdAt) : undefined;
  const tb = b.createdAt ? Date.parse(b.createdAt) : undefined;
  if (ta !== undefined && tb !== undefined && ta !== tb) return ta - tb;
  return compareText(a.id, b.id);
}
