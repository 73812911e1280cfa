import type { DuckDBConnection } from '@duckdb/node-api';
import { decimalUnits, formatE4 } from '../../money/money.ts';
import {
  matchRows,
  noChanges,
  sql,
  unchanged,
  writeRows,
  type Literal,
  type RowChanges,
} from '../../readmodel/row-writes.ts';
import { staleIdsUpTo, type StaleEntries } from '../../readmodel/stale-keys.ts';
import { groupBy, readTagged, taggedSql } from '../../readmodel/tagged-rows.ts';
import {
  PAYABLE_COLUMNS,
  PayableLeftToSql,
  payableRows,
  totalsChange,
  totalsKey,
  type EntryRow,
  type PayableRow,
  type TotalsRow,
} from './payable-rows.ts';

/**
 * A sync batch's refresh of payee_entry_pay and payee_unpaid_totals for a few stale entries, in
 * process (docs/summaries.md, "Every sync batch"): one statement reads the stale entries' rows,
 * payable rows, approved-bill lines and their users' live payees and rates (a first one their
 * ids, unless the batch's lines named them); the payable rows are computed (payable-rows.ts)
 * and written only where one changes (src/readmodel/row-writes.ts); then, only if one did,
 * the totals of their payees are read, changed by the rows that left and came, and written. A
 * group whose first or last date left with a row is read once more. With the macros (payee_entry_rates_for, payee_unpaid_totals_for) a one-entry batch ran
 * nine statements, two of them 4-8 ms whatever they refreshed.
 *
 * Returns false, having written nothing, when the batch is left to the macros: more stale
 * entries than `upTo`, or a case the in-process rules leave to them.
 */
export async function refreshPayableInProcess(
  duck: DuckDBConnection,
  stale: StaleEntries,
  upTo: number,
): Promise<boolean> {
  const ids = await staleIdsUpTo(duck, stale, upTo);
  if (ids === undefined) return false;
  if (ids.length === 0) return true;
  const context = await readTagged(duck, contextSql(ids));
  let newRows: PayableRow[];
  try {
    newRows = payableRows(
      (context.get('e') ?? []).map(entryRow),
      (context.get('p') ?? []).map(([id, ws, user, name, start]) => ({
        id: id!,
        workspaceId: ws!,
        userId: user!,
        name: name ?? null,
        startDate: start ?? null,
      })),
      (context.get('r') ?? []).map(([id, payee, ws, from, rate, currency]) => ({
        id: id!,
        payeeId: payee!,
        workspaceId: ws!,
        effectiveFrom: from!,
        hourlyRate: rate!,
        currency: currency!,
      })),
      new Set((context.get('a') ?? []).map(([ws, entry]) => `${ws}|${entry}`)),
    );
  } catch (error) {
    if (error instanceof PayableLeftToSql) return false;
    throw error;
  }
  const oldRows = (context.get('o') ?? []).map(([rowid, ...row]) => ({ rowid: rowid!, row }));
  const changes = noChanges<PayableRow>();
  const entryOf = PAYABLE_COLUMNS.indexOf('time_entry_id');
  const oldOf = groupBy(oldRows, ({ row }) => row[entryOf]!);
  const newOf = groupBy(newRows, (row) => row[entryOf]!);
  for (const id of ids) matchRows(oldOf.get(id) ?? [], newOf.get(id) ?? [], sameRow, changes);
  if (unchanged(changes)) return true;
  await writeRows(duck, 'payee_entry_pay', PAYABLE_COLUMNS, literals(changes, payableLiterals));

  // The rows that left and came, and the totals of their payees.
  const deleted = new Set(changes.deletes);
  const left = [
    ...changes.updates.map(({ old }) => old),
    ...oldRows.filter(({ rowid }) => deleted.has(rowid)).map(({ row }) => row),
  ];
  const came = [...changes.updates.map(({ row }) => row), ...changes.inserts];
  const payeeOf = PAYABLE_COLUMNS.indexOf('payee_id');
  const payees = new Set([...left, ...came].map((row) => sql.uuid(row[payeeOf]!)));
  const stored = new Map<string, { rowid: string; row: TotalsRow }>();
  const read = await duck.runAndReadAll(
    `SELECT CAST(rowid AS VARCHAR), ${TOTALS_COLUMNS.map((c) => `CAST(${c} AS VARCHAR)`).join(', ')}
     FROM payee_unpaid_totals WHERE payee_id IN (${[...payees].join(', ')})`,
  );
  for (const [rowid, ...values] of read.getRows()) {
    const row = totalsRow(values.map((v) => (v === null ? null : String(v))));
    stored.set(totalsKey(row), { rowid: String(rowid), row });
  }
  const change = totalsChange(new Map([...stored].map(([key, { row }]) => [key, row])), left, came);
  // Groups whose first or last date left with a row: read from the rows now written.
  const unknown = [...change.rows.values()].filter(
    (row) => row.firstDate === undefined || row.lastDate === undefined,
  );
  if (unknown.length > 0) {
    const dates = await duck.runAndReadAll(
      `SELECT CAST(workspace_id AS VARCHAR), CAST(payee_id AS VARCHAR), rate_currency,
         CAST(billable AS VARCHAR), CAST(min(entry_date) AS VARCHAR), CAST(max(entry_date) AS VARCHAR)
       FROM payee_entry_pay
       WHERE payee_id IN (${[...new Set(unknown.map((r) => sql.uuid(r.payeeId)))].join(', ')})
       GROUP BY workspace_id, payee_id, rate_currency, billable`,
    );
    const found = new Map(
      dates.getRows().map(([ws, payee, currency, billable, first, last]) => [
        totalsKey({
          workspaceId: String(ws),
          payeeId: String(payee),
          currency: currency === null ? null : String(currency),
          billable: billable === null ? null : String(billable),
        }),
        [first === null ? null : String(first), last === null ? null : String(last)] as const,
      ]),
    );
    for (const row of unknown) {
      const [first = null, last = null] = found.get(totalsKey(row)) ?? [];
      row.firstDate = first;
      row.lastDate = last;
    }
  }
  const totals = noChanges<TotalsRow>();
  for (const [key, row] of change.rows) {
    const kept = stored.get(key);
    matchRows(kept ? [kept] : [], [row], sameTotals, totals);
  }
  for (const key of change.gone) {
    const kept = stored.get(key);
    if (kept) totals.deletes.push(kept.rowid);
  }
  await writeRows(duck, 'payee_unpaid_totals', TOTALS_COLUMNS, literals(totals, totalsLiterals));
  return true;
}

const ENTRY_COLUMNS = [
  'id',
  'workspace_id',
  'user_id',
  'project_id',
  'task_id',
  'entry_date',
  'duration_seconds',
  'billable',
  'is_running',
  'note',
  'created_at',
  'deleted_at IS NULL',
];

const entryRow = (v: (string | null)[]): EntryRow => ({
  id: v[0]!,
  workspaceId: v[1]!,
  userId: v[2]!,
  projectId: v[3] ?? null,
  taskId: v[4] ?? null,
  entryDate: v[5] ?? null,
  durationSeconds: v[6] ?? null,
  billable: v[7] ?? null,
  isRunning: v[8] ?? null,
  note: v[9] ?? null,
  createdAt: v[10] ?? null,
  live: v[11] === 'true',
});

const TOTALS_COLUMNS = [
  'workspace_id',
  'payee_id',
  'currency',
  'billable',
  'items',
  'seconds',
  'first_date',
  'last_date',
  'amount',
  'unpriced',
];

const totalsRow = (v: (string | null)[]): TotalsRow => ({
  workspaceId: v[0]!,
  payeeId: v[1]!,
  currency: v[2] ?? null,
  billable: v[3] ?? null,
  items: BigInt(v[4]!),
  seconds: v[5] === null || v[5] === undefined ? null : BigInt(v[5]),
  firstDate: v[6] ?? null,
  lastDate: v[7] ?? null,
  amountE4: v[8] === null || v[8] === undefined ? null : decimalUnits(v[8], 4),
  unpriced: BigInt(v[9]!),
});

/**
 * For the stale entries `ids`: their rows, their payee_entry_pay rows with rowids, the entries a
 * line of a live APPROVED bill names (payee_entry_rates_for's entries_on_approved_bills), and
 * their users' live payees with those payees' live rates.
 */
function contextSql(ids: readonly string[]): string {
  const list = ids.map(sql.uuid).join(', ');
  const users = 'SELECT user_id FROM entries';
  const payees = `SELECT id FROM payees WHERE deleted_at IS NULL AND user_id IN (${users})`;
  return taggedSql(
    [
      ['e', ENTRY_COLUMNS, 'FROM entries'],
      ['o', ['rowid', ...PAYABLE_COLUMNS], 'FROM pay'],
      [
        'a',
        ['l.workspace_id', 'l.time_entry_id'],
        `FROM bill_lines l JOIN team_bills b ON b.workspace_id = l.workspace_id AND b.id = l.bill_id
         WHERE b.status = 'APPROVED' AND b.deleted_at IS NULL`,
      ],
      [
        'p',
        ['id', 'workspace_id', 'user_id', 'name', 'start_date'],
        `FROM payees WHERE deleted_at IS NULL AND user_id IN (${users})`,
      ],
      [
        'r',
        ['id', 'payee_id', 'workspace_id', 'effective_from', 'hourly_rate', 'currency'],
        `FROM payee_rates WHERE deleted_at IS NULL AND payee_id IN (${payees})`,
      ],
    ],
    [
      { name: 'entries', table: 'time_entries', column: 'id', keys: list },
      { name: 'pay', table: 'payee_entry_pay', column: 'time_entry_id', keys: list },
      { name: 'bill_lines', table: 'team_bill_lines', column: 'time_entry_id', keys: list },
    ],
  );
}

/** The SQL types of payee_entry_pay's columns (sql/tables.sql). */
const PAYABLE_TYPES: Record<(typeof PAYABLE_COLUMNS)[number], string> = {
  workspace_id: 'UUID',
  payee_id: 'UUID',
  payee_name: 'VARCHAR',
  payee_start_date: 'DATE',
  time_entry_id: 'UUID',
  user_id: 'UUID',
  project_id: 'UUID',
  task_id: 'UUID',
  entry_date: 'DATE',
  duration_seconds: 'INTEGER',
  billable: 'BOOLEAN',
  is_running: 'BOOLEAN',
  note: 'VARCHAR',
  created_at: 'TIMESTAMP WITH TIME ZONE',
  rate_id: 'UUID',
  rate_effective_from: 'DATE',
  hourly_rate: 'DECIMAL(18, 4)',
  rate_currency: 'VARCHAR',
  rate_currency_key: 'SMALLINT',
  on_or_after_start: 'BOOLEAN',
  on_approved_bill: 'BOOLEAN',
  is_payable: 'BOOLEAN',
};

/** A value as DuckDB printed it, cast back to its column's type. */
const typed = (value: string | null, type: string): Literal =>
  value === null ? 'NULL' : `CAST(${sql.text(value)} AS ${type})`;

const payableLiterals = (row: PayableRow): Literal[] =>
  PAYABLE_COLUMNS.map((column, i) => typed(row[i] ?? null, PAYABLE_TYPES[column]));

const sameRow = (a: PayableRow, b: PayableRow) => a.every((v, i) => v === b[i]);

const totalsLiterals = (row: TotalsRow): Literal[] => [
  sql.uuid(row.workspaceId),
  sql.uuid(row.payeeId),
  sql.text(row.currency),
  typed(row.billable, 'BOOLEAN'),
  sql.bigint(row.items),
  row.seconds === null ? 'NULL' : `${row.seconds}::HUGEINT`,
  sql.date(row.firstDate ?? null),
  sql.date(row.lastDate ?? null),
  row.amountE4 === null ? 'NULL' : `CAST('${formatE4(row.amountE4, 4)}' AS DECIMAL(38, 4))`,
  sql.bigint(row.unpriced),
];

const sameTotals = (a: TotalsRow, b: TotalsRow) =>
  totalsLiterals(a).every((v, i) => v === totalsLiterals(b)[i]);

function literals<Row>(
  changes: RowChanges<Row>,
  of: (row: Row) => Literal[],
): RowChanges<Literal[]> {
  return {
    updates: changes.updates.map(({ rowid, row, old }) => ({ rowid, row: of(row), old: of(old) })),
    inserts: changes.inserts.map(of),
    deletes: changes.deletes,
  };
}
