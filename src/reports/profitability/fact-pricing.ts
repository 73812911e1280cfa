import {
  e4InvoiceLineNet,
  e4Part,
  e4Parts,
  e4Round,
  e4Share,
  e4ShareCapped,
  e4ToBase,
  LeftToSql,
  largest,
  unitE4,
  type E4,
} from './e4.ts';

/**
 * The priced facts of a sync batch's few time entries, computed in process with BigInt: the
 * rules of profitability_facts_for (sql/views/profitability_facts_for.sql), which stays their
 * definition: the first load and any large batch price with it, and
 * test/reports/summaries-incremental.test.ts compares the two on random changes in both sync modes.
 * Pricing one entry this way takes microseconds; the macro's statement costs 20-25 ms of binding
 * and optimizing on every run, whatever it prices (docs/summaries.md).
 *
 * The inputs are the rows the macro reads for the entries (profitability.derived.ts reads them
 * in one statement): each lookup below is one of its CTEs. A currency without a known scale
 * (the macro's error('unknown currency ...')) throws LeftToSql: the macro decides it.
 */

/** A live, stopped time entry to price (fact_input_entries). */
export interface PricedEntry {
  id: string;
  workspaceId: string;
  userId: string;
  projectId: string;
  entryDate: string;
  durationSeconds: bigint;
  billable: boolean;
}

/** A workspace's base currency and its scale (null: unknown). */
export interface Base {
  currency: string;
  scale: number | null;
}

/** A live payee (live_payees). */
export interface Payee {
  id: string;
  workspaceId: string;
  userId: string;
  startDate: string | null;
}

/** A live pay rate (rate_periods). */
export interface PayRate {
  payeeId: string;
  workspaceId: string;
  effectiveFrom: string;
  hourlyRateE4: E4;
  currency: string;
  scale: number | null;
}

/** A TIME line of an entry on a live APPROVED bill of its workspace, with the bill's figures. */
export interface ApprovedLine {
  lineId: string;
  entryId: string;
  amountE4: E4;
  currency: string;
  scale: number | null;
  /** team_bill_figures' subtotal, adjustment_total and amount_paid, as e4 counts. */
  subtotalE4: E4;
  adjustmentE4: E4;
  amountPaidE4: E4;
}

/** A line of an entry on a live SENT or PAID invoice of its workspace, with the invoice's figures. */
export interface InvoiceLine {
  lineId: string;
  entryId: string;
  amountE4: E4;
  currency: string;
  scale: number | null;
  issueDate: string | null;
  subtotalE4: E4;
  discountE4: E4;
  totalE4: E4;
  amountPaidE4: E4;
}

/** The FX rate into a workspace's base currency that applies to a currency on a day. */
export interface FxRate {
  id: string;
  rateE10: bigint;
}

/** A (currency, day) an amount of a workspace needs a rate for (the macro's fx_days). */
export interface FxNeed {
  workspaceId: string;
  currency: string;
  date: string;
}

export const fxNeedKey = (need: FxNeed) => `${need.workspaceId}|${need.currency}|${need.date}`;

/** A row of profitability_facts (sql/tables.sql), amounts as e4 counts. */
export interface FactRow {
  workspace_id: string;
  time_entry_id: string;
  user_id: string;
  project_id: string;
  entry_date: string;
  cost_currency: string | null;
  cost_rate_id: string | null;
  cost_needs_fx: boolean;
  approved_e4: E4 | null;
  paid_e4: E4 | null;
  estimated_e4: E4 | null;
  approved_b4: E4 | null;
  paid_b4: E4 | null;
  estimated_b4: E4 | null;
  revenue_currency: string | null;
  revenue_rate_id: string | null;
  revenue_needs_fx: boolean;
  billed_e4: E4 | null;
  collected_e4: E4 | null;
  billed_b4: E4 | null;
  collected_b4: E4 | null;
  missing_pay_rate: boolean;
  unbilled_seconds: bigint;
}

/** The columns of profitability_facts, in the table's order. */
export const FACT_COLUMNS = [
  'workspace_id',
  'time_entry_id',
  'user_id',
  'project_id',
  'entry_date',
  'cost_currency',
  'cost_rate_id',
  'cost_needs_fx',
  'approved_e4',
  'paid_e4',
  'estimated_e4',
  'approved_b4',
  'paid_b4',
  'estimated_b4',
  'revenue_currency',
  'revenue_rate_id',
  'revenue_needs_fx',
  'billed_e4',
  'collected_e4',
  'billed_b4',
  'collected_b4',
  'missing_pay_rate',
  'unbilled_seconds',
] as const satisfies readonly (keyof FactRow)[];

/** What the pricing reads: the macro's inputs for the entries, by workspace where it filters so. */
export interface PricingInputs {
  entries: readonly PricedEntry[];
  bases: ReadonlyMap<string, Base>;
  payees: readonly Payee[];
  rates: readonly PayRate[];
  approvedLines: readonly ApprovedLine[];
  invoiceLines: readonly InvoiceLine[];
}

/** The k-th item of an entry, before conversion (the macro's `priced`). */
interface Item {
  entry: PricedEntry;
  costCurrency: string | null;
  approved: E4 | null;
  paid: E4 | null;
  estimated: E4 | null;
  revenueCurrency: string | null;
  issueDate: string | null;
  billed: E4 | null;
  collected: E4 | null;
  missingPayRate: boolean;
  unbilledSeconds: bigint;
  costFx: string | null;
  revenueFx: string | null;
  base: Base;
}

const scaleOf = (scale: number | null, currency: string) => {
  if (scale === null) throw new LeftToSql(`unknown currency ${currency}`);
  return unitE4(scale);
};
const nonZero = (...amounts: (E4 | null)[]) => amounts.some((a) => (a ?? 0n) !== 0n);
const byLineId = <T extends { lineId: string }>(a: T, b: T) =>
  a.lineId < b.lineId ? -1 : a.lineId > b.lineId ? 1 : 0;

/**
 * Prices the entries up to their conversion: returns the (currency, day) pairs that need an FX
 * rate, and `finish`, which takes the rates found for them (a pair without one: no rate) and
 * returns every fact row of the entries.
 */
export function priceFacts(inputs: PricingInputs): {
  needs: FxNeed[];
  finish: (rates: ReadonlyMap<string, FxRate>) => FactRow[];
} {
  const items: Item[] = [];
  const byEntry = <T extends { entryId: string }>(rows: readonly T[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) {
      const list = map.get(row.entryId);
      if (list) list.push(row);
      else map.set(row.entryId, [row]);
    }
    return map;
  };
  const approvedOf = byEntry(inputs.approvedLines);
  const invoiceLinesOf = byEntry(inputs.invoiceLines);
  for (const entry of inputs.entries) {
    const base = inputs.bases.get(entry.workspaceId);
    // CROSS JOIN base: a workspace without its row prices nothing.
    if (!base) continue;
    scaleOf(base.scale, base.currency);
    const approved = (approvedOf.get(entry.id) ?? []).sort(byLineId);
    const rate = rateOf(inputs, entry);
    const costs = approved.map((line) => {
      const unit = scaleOf(line.scale, line.currency);
      const total = add(e4Round(line.subtotalE4, unit), e4Round(line.adjustmentE4, unit));
      const paid = e4Round(line.amountPaidE4, unit);
      return {
        currency: line.currency,
        approved: e4Round(line.amountE4, unit),
        paid: e4ShareCapped(line.amountE4, paid, total, unit),
        estimated: null as E4 | null,
      };
    });
    if (costs.length === 0 && rate) {
      const unit = scaleOf(rate.scale, rate.currency);
      costs.push({
        currency: rate.currency,
        approved: null,
        paid: null,
        estimated: e4Share(entry.durationSeconds, rate.hourlyRateE4, 3600n, unit),
      });
    }
    const revenues = (invoiceLinesOf.get(entry.id) ?? []).sort(byLineId).map((line) => {
      const unit = scaleOf(line.scale, line.currency);
      const net = e4InvoiceLineNet(
        line.amountE4,
        line.subtotalE4 - line.discountE4,
        line.subtotalE4,
        unit,
      );
      return {
        currency: line.currency,
        issueDate: line.issueDate,
        billed: net,
        collected: e4ShareCapped(net, line.amountPaidE4, line.totalE4, unit),
      };
    });
    const count = Math.max(1, costs.length, revenues.length);
    for (let k = 0; k < count; k++) {
      const cost = costs[k];
      const revenue = revenues[k];
      const costCurrency = cost?.currency ?? null;
      const revenueCurrency = revenue?.currency ?? null;
      items.push({
        entry,
        costCurrency,
        approved: cost?.approved ?? null,
        paid: cost?.paid ?? null,
        estimated: cost?.estimated ?? null,
        revenueCurrency,
        issueDate: revenue?.issueDate ?? null,
        billed: revenue?.billed ?? null,
        collected: revenue?.collected ?? null,
        missingPayRate: k === 0 && approved.length === 0 && !rate,
        unbilledSeconds:
          k === 0 && entry.billable && revenues.length === 0 ? entry.durationSeconds : 0n,
        costFx:
          costCurrency !== null &&
          costCurrency !== base.currency &&
          nonZero(cost?.approved ?? null, cost?.paid ?? null, cost?.estimated ?? null)
            ? costCurrency
            : null,
        revenueFx:
          revenueCurrency !== null &&
          revenueCurrency !== base.currency &&
          nonZero(revenue?.billed ?? null, revenue?.collected ?? null)
            ? revenueCurrency
            : null,
        base,
      });
    }
  }
  const needs = new Map<string, FxNeed>();
  const need = (workspaceId: string, currency: string | null, date: string | null) => {
    if (currency === null || date === null) return;
    const fx = { workspaceId, currency, date };
    needs.set(fxNeedKey(fx), fx);
  };
  for (const item of items) {
    need(item.entry.workspaceId, item.costFx, item.entry.entryDate);
    need(item.entry.workspaceId, item.revenueFx, item.issueDate);
  }
  return {
    needs: [...needs.values()],
    finish: (rates) => items.flatMap((item) => factRows(item, rates)),
  };
}

/** a + b, NULL when either is (SQL's +). */
const add = (a: E4 | null, b: E4 | null) => (a === null || b === null ? null : a + b);

/**
 * The pay rate of an entry (entry_rates): its user's live payee of its workspace, from the
 * payee's start date, with the payee's live rate in force on its date (the latest
 * effective_from on or before it; two live rates of one day, which the store refuses, are left
 * to the macro).
 */
function rateOf(inputs: PricingInputs, entry: PricedEntry): PayRate | undefined {
  const payees = inputs.payees.filter(
    (p) => p.workspaceId === entry.workspaceId && p.userId === entry.userId,
  );
  if (payees.length > 1) throw new LeftToSql('two live payees of one user');
  const payee = payees[0];
  if (!payee || (payee.startDate !== null && entry.entryDate < payee.startDate)) return undefined;
  let found: PayRate | undefined;
  for (const rate of inputs.rates) {
    if (rate.payeeId !== payee.id || rate.workspaceId !== entry.workspaceId) continue;
    if (rate.effectiveFrom > entry.entryDate) continue;
    if (found?.effectiveFrom === rate.effectiveFrom)
      throw new LeftToSql('two live rates of one day');
    if (!found || rate.effectiveFrom > found.effectiveFrom) found = rate;
  }
  return found;
}

/** An item's fact rows: converted (`converted`), then in 64-bit parts (`parted`). */
function factRows(item: Item, rates: ReadonlyMap<string, FxRate>): FactRow[] {
  const { entry, base } = item;
  const baseUnit = unitE4(base.scale!);
  const rateFor = (currency: string | null, date: string | null) =>
    currency === null || date === null
      ? undefined
      : rates.get(fxNeedKey({ workspaceId: entry.workspaceId, currency, date }));
  const costRate = rateFor(item.costFx, entry.entryDate);
  const revenueRate = rateFor(item.revenueFx, item.issueDate);
  const costConverts = item.costFx !== null;
  const revenueConverts = item.revenueFx !== null;
  const cost = (amount: E4 | null) =>
    e4ToBase(amount, costConverts, costRate?.rateE10 ?? null, baseUnit);
  const revenue = (amount: E4 | null) =>
    e4ToBase(amount, revenueConverts, revenueRate?.rateE10 ?? null, baseUnit);
  const amounts = {
    approved_e4: item.approved,
    paid_e4: item.paid,
    estimated_e4: item.estimated,
    approved_b4: cost(item.approved),
    paid_b4: cost(item.paid),
    estimated_b4: cost(item.estimated),
    billed_e4: item.billed,
    collected_e4: item.collected,
    billed_b4: revenue(item.billed),
    collected_b4: revenue(item.collected),
  };
  const parts = e4Parts(largest(Object.values(amounts)));
  const rows: FactRow[] = [];
  for (let part = 0n; part < parts; part++) {
    const of = (amount: E4 | null) => e4Part(amount, parts, part);
    rows.push({
      workspace_id: entry.workspaceId,
      time_entry_id: entry.id,
      user_id: entry.userId,
      project_id: entry.projectId,
      entry_date: entry.entryDate,
      cost_currency: item.costCurrency,
      cost_rate_id: costRate?.id ?? null,
      cost_needs_fx: costConverts,
      approved_e4: of(amounts.approved_e4),
      paid_e4: of(amounts.paid_e4),
      estimated_e4: of(amounts.estimated_e4),
      approved_b4: of(amounts.approved_b4),
      paid_b4: of(amounts.paid_b4),
      estimated_b4: of(amounts.estimated_b4),
      revenue_currency: item.revenueCurrency,
      revenue_rate_id: revenueRate?.id ?? null,
      revenue_needs_fx: revenueConverts,
      billed_e4: of(amounts.billed_e4),
      collected_e4: of(amounts.collected_e4),
      billed_b4: of(amounts.billed_b4),
      collected_b4: of(amounts.collected_b4),
      missing_pay_rate: item.missingPayRate && part === 0n,
      unbilled_seconds: part === 0n ? item.unbilledSeconds : 0n,
    });
  }
  return rows;
}
