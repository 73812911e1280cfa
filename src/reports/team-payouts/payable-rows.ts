import { currencyScale } from '../../money/currencies.ts';
import { decimalUnits } from '../../money/money.ts';
import { currencyKey } from './unpaid-time.ts';

/**
 * The payable rows of a sync batch's few stale entries (payee_entry_pay) and the change of
 * their payees' unpaid totals (payee_unpaid_totals), computed in process: the rules of
 * payee_entry_rates_for and payee_unpaid_totals_for (sql/views/), which stay the definition
 * (the first load and any large batch refresh with them; test/reports/summaries-sync.test.ts and
 * test/reports/summaries-incremental.test.ts compare the tables with them). Values are kept as the text
 * DuckDB prints them, amounts as BigInt counts of 10^-4.
 */

/** A time entry as payee_entry_rates_for reads it (text as DuckDB prints each column). */
export interface EntryRow {
  id: string;
  workspaceId: string;
  userId: string;
  projectId: string | null;
  taskId: string | null;
  entryDate: string | null;
  durationSeconds: string | null;
  billable: string | null;
  isRunning: string | null;
  note: string | null;
  createdAt: string | null;
  live: boolean;
}

/** A live payee. */
export interface PayeeRow {
  id: string;
  workspaceId: string;
  userId: string;
  name: string | null;
  startDate: string | null;
}

/** A live pay rate. */
export interface RateRow {
  id: string;
  payeeId: string;
  workspaceId: string;
  effectiveFrom: string;
  hourlyRate: string;
  currency: string;
}

/** A case left to the macros (two live rates of a payee on one day, which the store refuses). */
export class PayableLeftToSql extends Error {}

/** The columns of payee_entry_pay (sql/tables.sql), in order. */
export const PAYABLE_COLUMNS = [
  'workspace_id',
  'payee_id',
  'payee_name',
  'payee_start_date',
  'time_entry_id',
  'user_id',
  'project_id',
  'task_id',
  'entry_date',
  'duration_seconds',
  'billable',
  'is_running',
  'note',
  'created_at',
  'rate_id',
  'rate_effective_from',
  'hourly_rate',
  'rate_currency',
  'rate_currency_key',
  'on_or_after_start',
  'on_approved_bill',
  'is_payable',
] as const;

/** A payee_entry_pay row: its values in PAYABLE_COLUMNS order, as DuckDB prints them. */
export type PayableRow = (string | null)[];

const column = (name: (typeof PAYABLE_COLUMNS)[number]) => PAYABLE_COLUMNS.indexOf(name);
const bool = (value: boolean) => (value ? 'true' : 'false');

/**
 * The payee_entry_pay rows of `entries` (payee_entry_rates_for WHERE is_payable): each live
 * entry with each live payee of its user in its workspace, the payee's live rate in force on
 * its date (ASOF: the latest effective_from on or before it), and whether a line of a live
 * APPROVED bill names it (`approved`: the entries' ids that one does, by workspace).
 */
export function payableRows(
  entries: readonly EntryRow[],
  payees: readonly PayeeRow[],
  rates: readonly RateRow[],
  approved: ReadonlySet<string>,
): PayableRow[] {
  const rows: PayableRow[] = [];
  for (const e of entries) {
    if (!e.live) continue;
    for (const p of payees) {
      if (p.workspaceId !== e.workspaceId || p.userId !== e.userId) continue;
      let rate: RateRow | undefined;
      if (e.entryDate !== null)
        for (const r of rates) {
          if (r.payeeId !== p.id || r.workspaceId !== e.workspaceId) continue;
          if (r.effectiveFrom > e.entryDate) continue;
          if (rate?.effectiveFrom === r.effectiveFrom)
            throw new PayableLeftToSql('two live rates of one day');
          if (!rate || r.effectiveFrom > rate.effectiveFrom) rate = r;
        }
      // SQL's three-valued logic: a NULL date is neither on nor after the start.
      const onOrAfterStart =
        p.startDate === null ? true : e.entryDate === null ? null : e.entryDate >= p.startDate;
      const onApprovedBill = approved.has(`${e.workspaceId}|${e.id}`);
      const running = e.isRunning === null ? null : e.isRunning === 'true';
      const positive = e.durationSeconds === null ? null : BigInt(e.durationSeconds) > 0n;
      const payable = and(
        running === null ? null : !running,
        positive,
        onOrAfterStart,
        !onApprovedBill,
      );
      if (payable !== true) continue;
      const key = rate ? currencyKey(rate.currency) : null;
      rows.push([
        e.workspaceId,
        p.id,
        p.name,
        p.startDate,
        e.id,
        e.userId,
        e.projectId,
        e.taskId,
        e.entryDate,
        e.durationSeconds,
        e.billable,
        e.isRunning,
        e.note,
        e.createdAt,
        rate?.id ?? null,
        rate?.effectiveFrom ?? null,
        rate?.hourlyRate ?? null,
        rate?.currency ?? null,
        rate ? String(key ?? -1) : null,
        onOrAfterStart === null ? null : bool(onOrAfterStart),
        bool(onApprovedBill),
        'true',
      ]);
    }
  }
  return rows;
}

/** SQL's AND of booleans that may be NULL. */
function and(...values: (boolean | null)[]): boolean | null {
  if (values.some((v) => v === false)) return false;
  return values.some((v) => v === null) ? null : true;
}

/** A payee_unpaid_totals row: its key and figures (amount as e4, NULL: none priced). */
export interface TotalsRow {
  workspaceId: string;
  payeeId: string;
  currency: string | null;
  billable: string | null;
  items: bigint;
  seconds: bigint | null;
  /** undefined: to be read (totalsChange). */
  firstDate: string | null | undefined;
  lastDate: string | null | undefined;
  amountE4: bigint | null;
  unpriced: bigint;
}

const groupKey = (row: {
  workspaceId: string;
  payeeId: string;
  currency: string | null;
  billable: string | null;
}) => JSON.stringify([row.workspaceId, row.payeeId, row.currency, row.billable]);

/** A payable row's group and what it adds to the group's figures. */
function contribution(row: PayableRow) {
  const currency = row[column('rate_currency')] ?? null;
  const rateId = row[column('rate_id')] ?? null;
  const scale = currency === null ? undefined : currencyScale(currency);
  const seconds = BigInt(row[column('duration_seconds')]!);
  return {
    workspaceId: row[column('workspace_id')]!,
    payeeId: row[column('payee_id')]!,
    currency,
    billable: row[column('billable')] ?? null,
    date: row[column('entry_date')] ?? null,
    seconds,
    amountE4:
      rateId !== null && scale !== undefined
        ? timeCostE4(seconds, row[column('hourly_rate')]!, scale)
        : null,
    unpriced: rateId !== null && scale === undefined ? 1n : 0n,
  };
}

/**
 * time_cost (sql/duckdb/macros.sql) as e4: seconds x hourly rate / 3600 rounded half away
 * from zero to the currency's minor unit.
 */
export function timeCostE4(seconds: bigint, hourlyRate: string, scale: number): bigint {
  const unit = [10000n, 1000n, 100n, 10n][scale] ?? 1n;
  const n = seconds * decimalUnits(hourlyRate, 4);
  const d = 3600n * unit;
  const rounded = n >= 0n ? (2n * n + d) / (2n * d) : -((2n * -n + d) / (2n * d));
  return rounded * unit;
}

/** The totals of groups that change: rows to write, and groups whose first or last date must be read. */
export interface TotalsChange {
  /** Groups left with items, by their key, with their new figures; dates `undefined` where unknown. */
  rows: Map<string, TotalsRow>;
  /** Keys of groups left with no item. */
  gone: Set<string>;
}

/**
 * The totals of the groups of `oldRows` and `newRows` once the old rows are replaced by the new:
 * `stored` (each group's row, if it has one) plus the new rows' figures less the old's. A
 * group's first and last date come from the rows added and the stored dates, unless a row
 * removed held one of them and no row added reaches it: then it is `undefined` (to be read).
 */
export function totalsChange(
  stored: ReadonlyMap<string, TotalsRow>,
  oldRows: readonly PayableRow[],
  newRows: readonly PayableRow[],
): TotalsChange {
  const groups = new Map<
    string,
    { row: TotalsRow; removed: (string | null)[]; added: (string | null)[] }
  >();
  const groupOf = (c: ReturnType<typeof contribution>) => {
    const key = groupKey(c);
    let group = groups.get(key);
    if (!group) {
      const row = stored.get(key);
      group = {
        row: row
          ? { ...row }
          : {
              workspaceId: c.workspaceId,
              payeeId: c.payeeId,
              currency: c.currency,
              billable: c.billable,
              items: 0n,
              seconds: null,
              firstDate: null,
              lastDate: null,
              amountE4: null,
              unpriced: 0n,
            },
        removed: [],
        added: [],
      };
      groups.set(key, group);
    }
    return group;
  };
  const apply = (row: PayableRow, sign: bigint) => {
    const c = contribution(row);
    const group = groupOf(c);
    const t = group.row;
    t.items += sign;
    t.seconds = (t.seconds ?? 0n) + sign * c.seconds;
    if (c.amountE4 !== null) t.amountE4 = (t.amountE4 ?? 0n) + sign * c.amountE4;
    t.unpriced += sign * c.unpriced;
    (sign > 0n ? group.added : group.removed).push(c.date);
  };
  for (const row of oldRows) apply(row, -1n);
  for (const row of newRows) apply(row, 1n);
  const change: TotalsChange = { rows: new Map(), gone: new Set() };
  for (const [key, { row, removed, added }] of groups) {
    if (row.items < 0n || row.unpriced < 0n) throw new Error(`payee_unpaid_totals ${key}: below 0`);
    if (row.items === 0n) {
      change.gone.add(key);
      continue;
    }
    row.firstDate = bound(row.firstDate, removed, added, (a, b) => a < b);
    row.lastDate = bound(row.lastDate, removed, added, (a, b) => a > b);
    change.rows.set(key, row);
  }
  return change;
}

/**
 * A group's first (or last) date once `removed` dates left it and `added` joined: the stored
 * one unless a removed row held it, the best added one if better; `undefined` when a removed row
 * held it and no added one reaches it (another row of the group may hold it, or a later one).
 */
function bound(
  stored: string | null | undefined,
  removed: readonly (string | null)[],
  added: readonly (string | null)[],
  better: (a: string, b: string) => boolean,
): string | null | undefined {
  if (stored === undefined) throw new Error('A stored date is always known');
  let best: string | null | undefined = stored;
  if (stored !== null && removed.includes(stored)) best = undefined;
  for (const date of added) {
    if (date === null) continue;
    if (best === null || (best !== undefined && better(date, best))) best = date;
    else if (best === undefined && stored !== null && !better(stored, date)) best = date;
  }
  return best;
}

export { groupKey as totalsKey };
