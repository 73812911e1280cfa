import { billAmounts } from './bill-figures.ts';
import { FxConverter } from './fx-conversion.ts';
import { livePayeesByUser, payRateAt } from './pay-rates.ts';
import {
  Dec,
  dec,
  formatAt,
  formatMoney,
  formatPlain,
  roundMoney,
  ZERO,
} from './reference-money.ts';
import { compareText, isLive } from './reference-snapshot.ts';
import type { InvoiceInput, InvoiceLineInput, SnapshotInput } from './reference-snapshot.ts';

/** Metric names in the order of docs/contract.md, "Value sets". */
export const METRICS = [
  'billedNet',
  'collectedNet',
  'compensationCost',
  'approvedCost',
  'estimatedCost',
  'paid',
  'pending',
] as const;
export type Metric = (typeof METRICS)[number];

/** The metrics measured per entry or line; the other two are derived from them. */
const PRIMARY = ['billedNet', 'collectedNet', 'approvedCost', 'estimatedCost', 'paid'] as const;
type PrimaryMetric = (typeof PRIMARY)[number];

export interface NativeAmount {
  currency: string;
  metric: Metric;
  amount: string;
}

/** An API metrics row without `links`. */
export interface MetricsRow {
  userId: string | null;
  payeeId: string | null;
  name: string | null;
  projectId: string | null;
  projectName: string | null;
  billedNet: string;
  collectedNet: string;
  compensationCost: string;
  approvedCost: string;
  estimatedCost: string;
  paid: string;
  pending: string;
  margin: string;
  marginPercent: string | null;
  clientUnbilledSeconds: number;
  missingFx: boolean;
  missingPayRate: boolean;
  missingMetrics: Metric[];
  nativeAmounts: NativeAmount[];
}

export interface MemberRow extends MetricsRow {
  projectCount: number;
  projects: MetricsRow[];
}

export interface CurrencyAmount {
  currency: string;
  amount: string;
}

export interface MissingFx {
  fromCurrency: string;
  toCurrency: string;
  amount: string;
  metric: Metric;
}

export interface FxRateUse {
  id: string;
  fromCurrency: string;
  toCurrency: string;
  effectiveFrom: string;
  createdAt: string | null;
  used: boolean;
  rate: string;
}

/** The API's "Team profitability" (`data`) without `links`. */
export interface Profitability {
  from: string;
  to: string;
  view: 'work';
  baseCurrency: string;
  page: number;
  perPage: number;
  memberTotal: number;
  missingRateCount: number;
  summary: MetricsRow;
  members: MemberRow[];
  unallocatedRevenue: CurrencyAmount[];
  unreconciledReceipts: CurrencyAmount[];
  missingFx: MissingFx[];
  fxRates: FxRateUse[];
}

export interface ProfitabilityQuery {
  from?: string;
  to?: string;
  /** Today in the workspace's time zone: the default range is its calendar month. */
  today: string;
  userId?: string;
  projectId?: string;
  clientId?: string;
  page?: number;
  perPage?: number;
}

/** One primary amount of one entry (or invoice line), rounded to its own currency. */
interface EntryAmount {
  metric: PrimaryMetric;
  currency: string;
  native: Dec;
  /** In the base currency, or undefined when no FX rate applied. */
  base: Dec | undefined;
}

/** Running totals of one row (member, member x project, or the summary). */
class RowTotals {
  readonly converted = new Map<PrimaryMetric, Dec>();
  /** metric -> currency -> native sum. */
  readonly native = new Map<PrimaryMetric, Map<string, Dec>>();
  readonly withoutFx = new Set<PrimaryMetric>();
  missingPayRate = false;
  clientUnbilledSeconds = 0;

  add(a: EntryAmount): void {
    const perCurrency = this.native.get(a.metric) ?? new Map<string, Dec>();
    perCurrency.set(a.currency, (perCurrency.get(a.currency) ?? ZERO).plus(a.native));
    this.native.set(a.metric, perCurrency);
    if (a.base === undefined) this.withoutFx.add(a.metric);
    else this.converted.set(a.metric, this.get(a.metric).plus(a.base));
  }

  get(metric: PrimaryMetric): Dec {
    return this.converted.get(metric) ?? ZERO;
  }

  nativeOf(metric: PrimaryMetric, currency: string): Dec {
    return this.native.get(metric)?.get(currency) ?? ZERO;
  }
}

interface RowIdentity {
  userId: string | null;
  payeeId: string | null;
  name: string | null;
  projectId: string | null;
  projectName: string | null;
}

/**
 * docs/contract.md, "Profitability" and "FX conversion": the profitability report
 * (`view=work`) of the entries dated in the range, per member and per member x project, converted
 * to the workspace base currency. Throws a RangeError for a page or perPage the API would answer
 * with 422.
 */
export function profitability(snapshot: SnapshotInput, query: ProfitabilityQuery): Profitability {
  const page = query.page ?? 1;
  const perPage = query.perPage ?? 25;
  if (!Number.isInteger(page) || page < 1) throw new RangeError('page must be an integer >= 1');
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
    throw new RangeError('perPage must be an integer in 1..100');
  }
  const from = query.from ?? `${query.today.slice(0, 7)}-01`;
  const to = query.to ?? lastDayOfMonth(query.today);
  const base = snapshot.workspace.baseCurrency;
  const fx = new FxConverter(snapshot, base);

  const projects = new Map((snapshot.projects ?? []).map((p) => [p.id, p]));
  const users = new Map((snapshot.users ?? []).map((u) => [u.id, u]));
  const payees = livePayeesByUser(snapshot);
  const bills = billAmounts(snapshot);

  // The live APPROVED bill's TIME line(s) for each entry (the importer allows one).
  const approvedLines = new Map<string, { amount: Dec; billId: string }[]>();
  for (const a of bills.values()) {
    if (a.bill.status !== 'APPROVED' || !isLive(a.bill)) continue;
    for (const line of a.bill.lines ?? []) {
      if (line.kind !== 'TIME' || !line.timeEntryId) continue;
      const list = approvedLines.get(line.timeEntryId) ?? [];
      list.push({ amount: dec(line.amount), billId: a.bill.id });
      approvedLines.set(line.timeEntryId, list);
    }
  }
  // Lines of live SENT/PAID invoices, by the entry they link.
  const invoicedLines = new Map<string, { line: InvoiceLineInput; invoice: InvoiceInput }[]>();
  for (const invoice of billedInvoices(snapshot)) {
    for (const line of invoice.lines ?? []) {
      if (!line.timeEntryId) continue;
      const list = invoicedLines.get(line.timeEntryId) ?? [];
      list.push({ line, invoice });
      invoicedLines.set(line.timeEntryId, list);
    }
  }

  const entries = (snapshot.timeEntries ?? []).filter(
    (e) =>
      isLive(e) &&
      e.isRunning !== true &&
      e.entryDate >= from &&
      e.entryDate <= to &&
      (query.userId === undefined || e.userId === query.userId) &&
      (query.projectId === undefined || e.projectId === query.projectId) &&
      (query.clientId === undefined || projects.get(e.projectId)?.clientId === query.clientId),
  );

  const summary = new RowTotals();
  const members = new Map<string, { totals: RowTotals; projects: Map<string, RowTotals> }>();
  const unconverted = new Map<PrimaryMetric, Map<string, Dec>>();
  const involved = new Set<string>();

  for (const entry of entries) {
    // Each amount rounded to its own currency, with the date its FX rate is looked up at.
    const dated: { amount: Omit<EntryAmount, 'base'>; date: string | null }[] = [];
    const push = (metric: PrimaryMetric, currency: string, native: Dec, date: string | null) => {
      dated.push({ amount: { metric, currency, native: roundMoney(native, currency) }, date });
    };

    const payee = payees.get(entry.userId);
    const lines = approvedLines.get(entry.id) ?? [];
    let missingPayRate = false;
    for (const { amount, billId } of lines) {
      const bill = bills.get(billId);
      if (bill === undefined) continue;
      const currency = bill.bill.currency;
      push('approvedCost', currency, amount, entry.entryDate);
      push('paid', currency, paidShare(amount, bill.amountPaid, bill.total), entry.entryDate);
    }
    if (lines.length === 0) {
      const rate = payee === undefined ? undefined : payRateAt(payee, entry.entryDate);
      if (rate === undefined) {
        missingPayRate = true;
      } else {
        const cost = dec(rate.hourlyRate).times(entry.durationSeconds).dividedBy(3600);
        push('estimatedCost', rate.currency, cost, entry.entryDate);
      }
    }
    const invoiced = invoicedLines.get(entry.id) ?? [];
    for (const { line, invoice } of invoiced) {
      const net = roundMoney(netOfLine(line, invoice), invoice.currency);
      const date = invoice.issueDate ?? null;
      push('billedNet', invoice.currency, net, date);
      const collected = paidShare(net, dec(invoice.amountPaid ?? '0'), dec(invoice.total));
      push('collectedNet', invoice.currency, collected, date);
    }
    const unbilledSeconds =
      (entry.billable ?? true) && invoiced.length === 0 ? entry.durationSeconds : 0;

    let member = members.get(entry.userId);
    if (member === undefined) {
      member = { totals: new RowTotals(), projects: new Map() };
      members.set(entry.userId, member);
    }
    const project = member.projects.get(entry.projectId) ?? new RowTotals();
    member.projects.set(entry.projectId, project);
    const rows = [summary, member.totals, project];

    for (const { amount, date } of dated) {
      // A zero amount is the same in every currency: it needs no rate and counts nowhere.
      if (amount.native.isZero()) continue;
      if (amount.currency !== base) involved.add(amount.currency);
      const converted: EntryAmount = {
        ...amount,
        base: fx.toBase(amount.native, amount.currency, date),
      };
      if (converted.base === undefined) {
        const perCurrency = unconverted.get(amount.metric) ?? new Map<string, Dec>();
        perCurrency.set(
          amount.currency,
          (perCurrency.get(amount.currency) ?? ZERO).plus(amount.native),
        );
        unconverted.set(amount.metric, perCurrency);
      }
      for (const row of rows) row.add(converted);
    }
    for (const row of rows) {
      row.missingPayRate ||= missingPayRate;
      row.clientUnbilledSeconds += unbilledSeconds;
    }
  }

  const memberRows: MemberRow[] = [...members.entries()].map(([userId, m]) => {
    const payee = payees.get(userId);
    const name = payee?.name ?? users.get(userId)?.name ?? null;
    const identity = { userId, payeeId: payee?.id ?? null, name };
    const projectRows = [...m.projects.entries()]
      .map(([projectId, totals]) =>
        metricsRow(
          { ...identity, projectId, projectName: projects.get(projectId)?.name ?? null },
          totals,
          base,
        ),
      )
      .sort(
        (a, b) =>
          compareNullableText(a.projectName, b.projectName) ||
          compareText(a.projectId ?? '', b.projectId ?? ''),
      );
    return {
      ...metricsRow({ ...identity, projectId: null, projectName: null }, m.totals, base),
      projectCount: projectRows.length,
      projects: projectRows,
    };
  });
  memberRows.sort(
    (a, b) => compareNullableText(a.name, b.name) || compareText(a.userId ?? '', b.userId ?? ''),
  );

  const missingFx: MissingFx[] = [];
  for (const metric of PRIMARY) {
    for (const [currency, amount] of sortedByCurrency(unconverted.get(metric))) {
      missingFx.push({
        fromCurrency: currency,
        toCurrency: base,
        amount: formatMoney(amount, currency),
        metric,
      });
    }
  }
  missingFx.sort((a, b) => METRICS.indexOf(a.metric) - METRICS.indexOf(b.metric));

  const fxRates = (snapshot.fxRates ?? [])
    .filter((r) => isLive(r) && r.toCurrency === base && involved.has(r.fromCurrency))
    .sort(
      (a, b) =>
        compareText(a.fromCurrency, b.fromCurrency) ||
        compareText(a.effectiveFrom, b.effectiveFrom) ||
        compareText(a.id, b.id),
    )
    .map((r) => ({
      id: r.id,
      fromCurrency: r.fromCurrency,
      toCurrency: r.toCurrency,
      effectiveFrom: r.effectiveFrom,
      createdAt: r.createdAt ?? null,
      used: fx.used.has(r.id),
      rate: formatPlain(r.rate),
    }));

  const nullIdentity = {
    userId: null,
    payeeId: null,
    name: null,
    projectId: null,
    projectName: null,
  };
  return {
    from,
    to,
    view: 'work',
    baseCurrency: base,
    page,
    perPage,
    memberTotal: memberRows.length,
    missingRateCount: memberRows.filter((m) => m.missingPayRate).length,
    summary: metricsRow(nullIdentity, summary, base),
    members: memberRows.slice((page - 1) * perPage, page * perPage),
    unallocatedRevenue: unallocatedRevenue(snapshot, query, from, to),
    unreconciledReceipts: unreconciledReceipts(snapshot, query, from, to),
    missingFx,
    fxRates,
  };
}

/** Live invoices whose lines count as billed: SENT or PAID. */
function billedInvoices(snapshot: SnapshotInput): InvoiceInput[] {
  return (snapshot.invoices ?? []).filter(
    (i) => isLive(i) && (i.status === 'SENT' || i.status === 'PAID'),
  );
}

/** line.amount x (1 - discount / subtotal), multiplied before dividing; unrounded. */
function netOfLine(line: InvoiceLineInput, invoice: InvoiceInput): Dec {
  const amount = dec(line.amount);
  const subtotal = dec(invoice.subtotal);
  if (subtotal.isZero()) return amount;
  const discount = dec(invoice.discountAmount ?? '0');
  return amount.times(subtotal.minus(discount)).dividedBy(subtotal);
}

/** amount x min(paid / total, 1), 0 when total is 0; multiplied before dividing; unrounded. */
function paidShare(amount: Dec, paid: Dec, total: Dec): Dec {
  if (total.isZero()) return ZERO;
  const ratioAtLeastOne = total.greaterThan(0)
    ? paid.greaterThanOrEqualTo(total)
    : paid.lessThanOrEqualTo(total);
  return ratioAtLeastOne ? amount : amount.times(paid).dividedBy(total);
}

function metricsRow(identity: RowIdentity, t: RowTotals, base: string): MetricsRow {
  const billedNet = t.get('billedNet');
  const approvedCost = t.get('approvedCost');
  const compensationCost = approvedCost.plus(t.get('estimatedCost'));
  const pending = approvedCost.minus(t.get('paid'));
  const margin = billedNet.minus(compensationCost);
  const incomplete = new Set<Metric>(t.withoutFx);
  if (t.missingPayRate) incomplete.add('estimatedCost');
  if (incomplete.has('approvedCost') || incomplete.has('estimatedCost')) {
    incomplete.add('compensationCost');
  }
  if (incomplete.has('approvedCost') || incomplete.has('paid')) incomplete.add('pending');
  const money = (d: Dec) => formatMoney(d, base);
  return {
    ...identity,
    billedNet: money(billedNet),
    collectedNet: money(t.get('collectedNet')),
    compensationCost: money(compensationCost),
    approvedCost: money(approvedCost),
    estimatedCost: money(t.get('estimatedCost')),
    paid: money(t.get('paid')),
    pending: money(pending),
    margin: money(margin),
    marginPercent: billedNet.isZero() ? null : formatAt(margin.times(100).dividedBy(billedNet), 2),
    clientUnbilledSeconds: t.clientUnbilledSeconds,
    missingFx: t.withoutFx.size > 0,
    missingPayRate: t.missingPayRate,
    missingMetrics: METRICS.filter((m) => incomplete.has(m)),
    nativeAmounts: nativeAmounts(t),
  };
}

/** Unconverted sums per metric and currency, derived metrics derived per currency. */
function nativeAmounts(t: RowTotals): NativeAmount[] {
  const currencies = new Set<string>();
  for (const perCurrency of t.native.values())
    for (const c of perCurrency.keys()) currencies.add(c);
  const amountOf = (metric: Metric, c: string): Dec => {
    switch (metric) {
      case 'compensationCost':
        return t.nativeOf('approvedCost', c).plus(t.nativeOf('estimatedCost', c));
      case 'pending':
        return t.nativeOf('approvedCost', c).minus(t.nativeOf('paid', c));
      case 'billedNet':
      case 'collectedNet':
      case 'approvedCost':
      case 'estimatedCost':
      case 'paid':
        return t.nativeOf(metric, c);
    }
  };
  const sorted = [...currencies].sort(compareText);
  const result: NativeAmount[] = [];
  for (const metric of METRICS) {
    for (const currency of sorted) {
      const amount = amountOf(metric, currency);
      if (!amount.isZero())
        result.push({ currency, metric, amount: formatMoney(amount, currency) });
    }
  }
  return result;
}

/** Net of SENT/PAID invoice lines linked to no time entry, issued in range, per currency. */
function unallocatedRevenue(
  snapshot: SnapshotInput,
  query: ProfitabilityQuery,
  from: string,
  to: string,
): CurrencyAmount[] {
  if (query.userId !== undefined) return [];
  const sums = new Map<string, Dec>();
  for (const invoice of billedInvoices(snapshot)) {
    if (!issuedIn(invoice, from, to)) continue;
    if (query.clientId !== undefined && invoice.clientId !== query.clientId) continue;
    for (const line of invoice.lines ?? []) {
      if (line.timeEntryId) continue;
      if (query.projectId !== undefined && line.projectId !== query.projectId) continue;
      const net = roundMoney(netOfLine(line, invoice), invoice.currency);
      sums.set(invoice.currency, (sums.get(invoice.currency) ?? ZERO).plus(net));
    }
  }
  return currencyAmounts(sums);
}

/** Overpayments of SENT/PAID invoices and payments on CANCELLED ones, issued in range. */
function unreconciledReceipts(
  snapshot: SnapshotInput,
  query: ProfitabilityQuery,
  from: string,
  to: string,
): CurrencyAmount[] {
  if (query.userId !== undefined || query.projectId !== undefined) return [];
  const sums = new Map<string, Dec>();
  for (const invoice of snapshot.invoices ?? []) {
    if (!isLive(invoice) || !issuedIn(invoice, from, to)) continue;
    if (query.clientId !== undefined && invoice.clientId !== query.clientId) continue;
    const paid = dec(invoice.amountPaid ?? '0');
    let receipt = ZERO;
    if (invoice.status === 'SENT' || invoice.status === 'PAID') {
      receipt = Dec.max(paid.minus(dec(invoice.total)), ZERO);
    } else if (invoice.status === 'CANCELLED') {
      receipt = paid;
    }
    sums.set(invoice.currency, (sums.get(invoice.currency) ?? ZERO).plus(receipt));
  }
  return currencyAmounts(sums);
}

function issuedIn(invoice: InvoiceInput, from: string, to: string): boolean {
  const d = invoice.issueDate;
  return d !== undefined && d !== null && d >= from && d <= to;
}

/** Non-zero sums as `{currency, amount}`, sorted by currency. */
function currencyAmounts(sums: Map<string, Dec>): CurrencyAmount[] {
  return sortedByCurrency(sums)
    .filter(([, amount]) => !amount.isZero())
    .map(([currency, amount]) => ({ currency, amount: formatMoney(amount, currency) }));
}

function sortedByCurrency(sums: Map<string, Dec> | undefined): [string, Dec][] {
  return [...(sums ?? new Map<string, Dec>()).entries()].sort(([a], [b]) => compareText(a, b));
}

/** Text order with null last. */
function compareNullableText(a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return compareText(a, b);
}

function lastDayOfMonth(date: string): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  // Day 0 of the next month is the last day of this one (UTC, so no zone shifts it).
  const day = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${date.slice(0, 7)}-${String(day).padStart(2, '0')}`;
}
