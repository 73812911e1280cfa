import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlParams } from '../http/list/sql-params.ts';

/**
 * Read-model tables of the summaries: derived in DuckDB from the copied tables, never copied
 * from PostgreSQL (docs/summaries.md).
 */
export const SUMMARY_TABLES = [
  'team_bill_figures',
  'payee_entry_pay',
  'payee_unpaid_totals',
  'profitability_month_cells',
  'profitability_member_cells',
  'invoice_unallocated_nets',
  'summary_dirty_bills',
  'summary_dirty_invoices',
  'summary_dirty_entries',
  'summary_dirty_payees',
  'summary_dirty_cells',
  'profitability_period_versions',
  'summary_dirty_periods',
  'summary_dirty_months',
] as const;

/** Entries refreshed per statement when payee_entry_pay is built whole (bounds its memory). */
const ENTRIES_PER_SLICE = 1_000_000;

/**
 * Builds every summary from scratch, inside the caller's open transaction (the first load's,
 * or a truncate's), so the summaries are equal to the rows they are loaded with. Entries and
 * month cells go through the same refreshes as a sync batch's, a slice at a time (entries by
 * hash, cells by runs of a workspace's months): in one statement, matching ten million entries against
 * millions of bill and invoice lines would outgrow the read model's memory limit.
 */
export async function rebuildSummaries(duck: DuckDBConnection): Promise<void> {
  for (const table of SUMMARY_TABLES) await duck.run(`DELETE FROM ${table}`);
  await duck.run('INSERT INTO team_bill_figures FROM team_bill_figures_for(true)');
  await duck.run('INSERT INTO invoice_unallocated_nets FROM invoice_unallocated_nets_for(true)');
  const count = (await duck.runAndReadAll('SELECT count(*) FROM time_entries')).getRows()[0]![0];
  const slices = Math.max(1, Math.ceil(Number(count) / ENTRIES_PER_SLICE));
  for (let slice = 0; slice < slices; slice++) {
    await duck.run(
      `INSERT INTO summary_dirty_entries
       SELECT id FROM time_entries WHERE hash(id) % ${slices} = ${slice}`,
    );
    await refreshEntries(duck);
  }
  // Every payee was touched by some slice: its totals are built once, whole.
  await duck.run('DELETE FROM summary_dirty_payees');
  await duck.run('INSERT INTO payee_unpaid_totals FROM payee_unpaid_totals_for(true)');
  // Month cells a run of consecutive months at a time, up to about a slice of entries: one
  // month of a large workspace, a small workspace whole.
  const months = (
    await duck.runAndReadAll(
      `SELECT CAST(workspace_id AS VARCHAR), CAST(entry_month(entry_date) AS VARCHAR) AS month,
         count(*) AS entries
       FROM time_entries GROUP BY ALL ORDER BY 1, 2`,
    )
  ).getRows() as [string, string, bigint][];
  let run: { workspace: string; months: string[]; entries: number } | null = null;
  const flush = async () => {
    if (!run) return;
    const params = new SqlParams();
    await duck.run(
      `INSERT INTO summary_dirty_cells
       SELECT DISTINCT workspace_id, entry_month(entry_date), user_id, project_id FROM time_entries
       WHERE workspace_id = ${params.bind(run.workspace, 'UUID')}
         AND ${params.in('entry_month(entry_date)', run.months, 'DATE')}`,
      params.values,
    );
    await refreshCells(duck);
    run = null;
  };
  for (const [workspace, month, entries] of months) {
    if (run && (run.workspace !== workspace || run.entries + Number(entries) > ENTRIES_PER_SLICE))
      await flush();
    run ??= { workspace, months: [], entries: 0 };
    run.months.push(month);
    run.entries += Number(entries);
  }
  await flush();
  await refreshPeriods(duck);
}

/** The ids a change file (`source`, columns as text) names, as UUIDs. */
const ids = (source: string, column = 'id') =>
  `SELECT DISTINCT CAST(${column} AS UUID) FROM ${source} WHERE ${column} IS NOT NULL`;

/** The month cells of some entries (deleted ones too: their cell loses them). */
const cellsOfEntries = (entryIds: string) =>
  `SELECT DISTINCT workspace_id, entry_month(entry_date), user_id, project_id FROM time_entries
   WHERE id IN (${entryIds})`;

/** The entries of the users of some payees (a payee's work is its user's entries). */
const entriesOfPayees = (payeeIds: string) =>
  `SELECT e.id FROM time_entries e
   WHERE e.user_id IN (SELECT user_id FROM payees WHERE id IN (${payeeIds}))`;

/** The entries on the lines of some team bills (a bill's figures share out over its lines). */
const entriesOfBills = (billIds: string) =>
  `SELECT time_entry_id FROM team_bill_lines
   WHERE bill_id IN (${billIds}) AND time_entry_id IS NOT NULL`;

/** The entries on the lines of some invoices. */
const entriesOfInvoices = (invoiceIds: string) =>
  `SELECT time_entry_id FROM invoice_lines
   WHERE invoice_id IN (${invoiceIds}) AND time_entry_id IS NOT NULL`;

/** The invoices of the invoice lines a change file names. */
const invoicesOfLines = (source: string) =>
  `SELECT invoice_id FROM invoice_lines WHERE id IN (${ids(source)})`;

/**
 * The issue months of some invoices: a report lists their unallocated revenue and unreconciled
 * receipts by issue date.
 */
const monthsOfInvoices = (invoiceIds: string) =>
  `SELECT DISTINCT workspace_id, entry_month(issue_date) FROM invoices
   WHERE id IN (${invoiceIds}) AND issue_date IS NOT NULL`;

/** Every month cell of some workspaces (their FX rates or base currency changed). */
const cellsOfWorkspaces = (workspaceIds: string) =>
  `SELECT DISTINCT workspace_id, entry_month(entry_date), user_id, project_id FROM time_entries
   WHERE workspace_id IN (${workspaceIds})`;

/** Every versioned period of the workspaces `workspaceIds` selects. */
const periodsOf = (workspaceIds: string) =>
  `SELECT workspace_id, period_from, period_to FROM profitability_period_versions
   WHERE workspace_id IN (${workspaceIds})`;

/** Every cell and every kept report of the workspaces `workspaceIds(source)` selects. */
const wholeWorkspaces = (workspaceIds: (source: string) => string): Stale => ({
  cells: (source) => cellsOfWorkspaces(workspaceIds(source)),
  workspaces: workspaceIds,
});

interface Stale {
  /** Bills whose figures (team_bill_figures) are stale. */
  bills?: (source: string) => string;
  /** Invoices whose unallocated nets are stale. */
  invoices?: (source: string) => string;
  /** Entries whose payee_entry_pay row is stale. */
  entries?: (source: string) => string;
  /** Month cells that are stale (workspace_id, month, user_id, project_id). */
  cells?: (source: string) => string;
  /**
   * Months whose kept reports are stale beyond their cells' (workspace_id, month): the invoices
   * a report lists by issue date. The months of stale cells are found from the cells.
   */
  months?: (source: string) => string;
  /** Workspaces every kept report of which is stale (a name, rate or currency it shows changed). */
  workspaces?: (source: string) => string;
}

/**
 * Which summary keys a change of each table makes stale, read from the read model as it stands.
 * Each is run both before and after the change file is applied: before, the rows the change
 * replaces still name their old entry, bill, invoice or user (a moved line, an entry moved to
 * another month or member); after, the new rows name theirs. Delete lines of a change file
 * carry keys only.
 */
const STALE: Record<string, Stale> = {
  time_entries: {
    entries: (source) => ids(source),
    cells: (source) => cellsOfEntries(ids(source)),
  },
  payees: {
    entries: (source) => entriesOfPayees(ids(source)),
    cells: (source) => cellsOfEntries(entriesOfPayees(ids(source))),
  },
  payee_rates: {
    entries: (source) =>
      entriesOfPayees(`SELECT payee_id FROM payee_rates WHERE id IN (${ids(source)})`),
    cells: (source) =>
      cellsOfEntries(
        entriesOfPayees(`SELECT payee_id FROM payee_rates WHERE id IN (${ids(source)})`),
      ),
  },
  team_bills: {
    bills: (source) => ids(source),
    entries: (source) => entriesOfBills(ids(source)),
    cells: (source) => cellsOfEntries(entriesOfBills(ids(source))),
  },
  team_bill_lines: {
    bills: (source) => `SELECT bill_id FROM team_bill_lines WHERE id IN (${ids(source)})`,
    entries: (source) =>
      `SELECT time_entry_id FROM team_bill_lines
       WHERE id IN (${ids(source)}) AND time_entry_id IS NOT NULL`,
    // A line changes its bill's total, which every line of the bill is paid a share of.
    cells: (source) =>
      cellsOfEntries(
        entriesOfBills(`SELECT bill_id FROM team_bill_lines WHERE id IN (${ids(source)})`),
      ),
  },
  team_payments: {
    bills: (source) =>
      `SELECT bill_id FROM team_payment_allocations WHERE payment_id IN (${ids(source)})`,
    cells: (source) =>
      cellsOfEntries(
        entriesOfBills(
          `SELECT bill_id FROM team_payment_allocations WHERE payment_id IN (${ids(source)})`,
        ),
      ),
  },
  team_payment_allocations: {
    bills: (source) => ids(source, 'bill_id'),
    cells: (source) =>
      cellsOfEntries(
        // Keyed by (payment_id, bill_id): the change file names the bill itself.
        entriesOfBills(ids(source, 'bill_id')),
      ),
  },
  invoices: {
    invoices: (source) => ids(source),
    cells: (source) => cellsOfEntries(entriesOfInvoices(ids(source))),
    months: (source) => monthsOfInvoices(ids(source)),
  },
  invoice_lines: {
    invoices: (source) => invoicesOfLines(source),
    cells: (source) => cellsOfEntries(entriesOfInvoices(invoicesOfLines(source))),
    months: (source) => monthsOfInvoices(invoicesOfLines(source)),
  },
  // A rate converts any period's amounts: its invoices' too, in a period with no work.
  fx_rates: wholeWorkspaces(
    (source) => `SELECT workspace_id FROM fx_rates WHERE id IN (${ids(source)})`,
  ),
  // The kept reports show project names and, for a member without a payee, the user's name.
  projects: {
    workspaces: (source) => `SELECT workspace_id FROM projects WHERE id IN (${ids(source)})`,
  },
  users: {
    workspaces: (source) => `SELECT workspace_id FROM users WHERE id IN (${ids(source)})`,
  },
};

/**
 * The workspaces whose base currency a change file changes (or deletes): every amount's
 * conversion changes, and every kept report shows the base currency, a period with no work in
 * it too. Read before the file is applied, comparing the old row with the new.
 */
const REBASED = wholeWorkspaces(
  (source) => `SELECT w.id FROM workspaces w JOIN ${source} s ON w.id = CAST(s.id AS UUID)
   WHERE s.base_currency IS DISTINCT FROM w.base_currency`,
);

/**
 * The summaries' share of one sync batch flush (ChangeBatch.flush), like the search index's:
 * told about each table's change file before and after it is applied, it collects the stale
 * keys, then refreshes them once all tables are applied, in the same DuckDB transaction. A
 * flush that touches no summarised table costs nothing here.
 */
export class SummaryUpdate {
  private touched = false;

  async beforeApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    if (table === 'workspaces') await this.mark(duck, REBASED, source);
    await this.collect(duck, table, source);
  }

  async afterApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    await this.collect(duck, table, source);
  }

  /** After every table of the flush is applied: refreshes the stale keys. */
  async refresh(duck: DuckDBConnection): Promise<void> {
    if (!this.touched) return;
    await refreshKeys(duck, 'team_bill_figures', 'bill_id', 'summary_dirty_bills');
    await refreshKeys(duck, 'invoice_unallocated_nets', 'invoice_id', 'summary_dirty_invoices');
    await refreshEntries(duck);
    await refreshKeys(duck, 'payee_unpaid_totals', 'payee_id', 'summary_dirty_payees');
    await refreshCells(duck);
    await refreshPeriods(duck);
    this.touched = false;
  }

  private async collect(duck: DuckDBConnection, table: string, source: string) {
    const stale = STALE[table];
    if (stale) await this.mark(duck, stale, source);
  }

  /** Notes the keys `stale` reads from the change file `source` as stale. */
  private async mark(duck: DuckDBConnection, stale: Stale, source: string) {
    this.touched = true;
    if (stale.bills) await duck.run(`INSERT INTO summary_dirty_bills ${stale.bills(source)}`);
    if (stale.invoices) {
      await duck.run(`INSERT INTO summary_dirty_invoices ${stale.invoices(source)}`);
    }
    if (stale.entries) await duck.run(`INSERT INTO summary_dirty_entries ${stale.entries(source)}`);
    if (stale.cells) await duck.run(`INSERT INTO summary_dirty_cells ${stale.cells(source)}`);
    if (stale.months) await duck.run(`INSERT INTO summary_dirty_months ${stale.months(source)}`);
    if (stale.workspaces) {
      await duck.run(`INSERT INTO summary_dirty_periods ${periodsOf(stale.workspaces(source))}`);
    }
  }
}

/**
 * payee_entry_pay for the entries in summary_dirty_entries, which it empties; the payees of
 * their rows, before and after, go to summary_dirty_payees (their totals are stale).
 */
async function refreshEntries(duck: DuckDBConnection): Promise<void> {
  const payeesOfDirtyRows = `INSERT INTO summary_dirty_payees
    SELECT DISTINCT payee_id FROM payee_entry_pay
    WHERE time_entry_id IN (SELECT time_entry_id FROM summary_dirty_entries)`;
  await duck.run(payeesOfDirtyRows);
  await duck.run(
    `DELETE FROM payee_entry_pay
     WHERE time_entry_id IN (SELECT time_entry_id FROM summary_dirty_entries)`,
  );
  await duck.run(
    'INSERT INTO payee_entry_pay SELECT * FROM payee_entry_rates_for(false) WHERE is_payable',
  );
  await duck.run(payeesOfDirtyRows);
  await duck.run('DELETE FROM summary_dirty_entries');
}

/**
 * A summary keyed by one column, for the keys in its dirty table, which it empties: their rows
 * deleted, then inserted again from the summary's macro `<table>_for(false)`.
 */
async function refreshKeys(duck: DuckDBConnection, table: string, key: string, dirty: string) {
  await duck.run(`DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${dirty})`);
  await duck.run(`INSERT INTO ${table} FROM ${table}_for(false)`);
  await duck.run(`DELETE FROM ${dirty}`);
}

/**
 * profitability_month_cells for the cells in summary_dirty_cells, which it empties: per
 * workspace, profitability_cells over the dirty months with `dirty` (their entries only); then
 * profitability_member_cells for the members and months of those cells.
 *
 * Both are written sorted by month, then member (DuckDB keeps an INSERT's ORDER BY in storage),
 * so a full build leaves each member's cells of a month together: a report for one member
 * reads its cells' columns from a few places instead of from every vector of the range (a
 * year of one member on the 10M-entry workspace: 5-13 ms against 86-98 ms to read them).
 * A sync batch appends its cells sorted the same way after the rest.
 */
async function refreshCells(duck: DuckDBConnection): Promise<void> {
  // Per workspace, runs of dirty months no more than a year apart: profitability_cells looks
  // FX rates up for every day of its range, and one entry dated 9999-12-31 beside others of
  // this decade made one range of 2.9 million days (12 s for a workspace of a few rows).
  const ranges = (
    await duck.runAndReadAll(
      `SELECT workspace_id, min(month), last_day(max(month)) FROM (
         SELECT workspace_id, month,
           count(*) FILTER (WHERE month > previous + INTERVAL 12 MONTH)
             OVER (PARTITION BY workspace_id ORDER BY month) AS run
         FROM (
           SELECT workspace_id, month,
             lag(month) OVER (PARTITION BY workspace_id ORDER BY month) AS previous
           FROM (SELECT DISTINCT workspace_id, month FROM summary_dirty_cells)
         )
       )
       GROUP BY workspace_id, run`,
    )
  ).getRows();
  if (ranges.length === 0) return;
  await duck.run(
    `DELETE FROM profitability_month_cells c USING summary_dirty_cells d
     WHERE c.workspace_id = d.workspace_id AND c.month = d.month
       AND c.user_id = d.user_id AND c.project_id = d.project_id`,
  );
  for (const [workspace, from, to] of ranges) {
    await duck.run(
      `INSERT INTO profitability_month_cells BY NAME
       SELECT CAST($workspace AS UUID) AS workspace_id, *
       FROM profitability_cells(CAST($workspace AS UUID), CAST($from AS DATE), CAST($to AS DATE),
         NULL, NULL, NULL, dirty := true)
       ORDER BY month, user_id, project_id`,
      { workspace: String(workspace), from: String(from), to: String(to) },
    );
  }
  // The members' sums over projects, for the members and months of the dirty cells.
  await duck.run(
    `DELETE FROM profitability_member_cells m USING summary_dirty_cells d
     WHERE m.workspace_id = d.workspace_id AND m.month = d.month AND m.user_id = d.user_id`,
  );
  await duck.run(
    `INSERT INTO profitability_member_cells BY NAME
     SELECT * FROM profitability_member_cells_for(false) ORDER BY workspace_id, month, user_id`,
  );
  // The kept reports of the cells' months are stale.
  await duck.run(
    'INSERT INTO summary_dirty_months SELECT DISTINCT workspace_id, month FROM summary_dirty_cells',
  );
  await duck.run('DELETE FROM summary_dirty_cells');
}

/**
 * A new version for every period in summary_dirty_periods and every period holding a month of
 * summary_dirty_months, which it empties: the reports kept for those periods no longer serve
 * (profitability.periods.ts computes them again). A month gets its own period, its calendar
 * year and the twelve months ending with it the first time it changes, so every period that
 * can be kept (a month, twelve months) and holds work or invoices has a version.
 */
async function refreshPeriods(duck: DuckDBConnection): Promise<void> {
  await duck.run(
    `INSERT INTO summary_dirty_periods
     WITH months AS (SELECT DISTINCT workspace_id, month FROM summary_dirty_months)
     SELECT workspace_id, month, last_day(month) FROM months
     UNION
     SELECT workspace_id, make_date(year(month), 1, 1), make_date(year(month), 12, 31) FROM months
     UNION
     SELECT workspace_id, CAST(month - INTERVAL 11 MONTH AS DATE), last_day(month) FROM months
     UNION
     SELECT v.workspace_id, v.period_from, v.period_to
     FROM profitability_period_versions v
     JOIN months m ON m.workspace_id = v.workspace_id AND m.month BETWEEN v.period_from AND v.period_to`,
  );
  await duck.run(
    `DELETE FROM profitability_period_versions v USING summary_dirty_periods d
     WHERE v.workspace_id = d.workspace_id AND v.period_from = d.period_from
       AND v.period_to = d.period_to`,
  );
  await duck.run(
    `INSERT INTO profitability_period_versions
     SELECT workspace_id, period_from, period_to, nextval('profitability_period_version')
     FROM (SELECT DISTINCT workspace_id, period_from, period_to FROM summary_dirty_periods)`,
  );
  await duck.run('DELETE FROM summary_dirty_periods');
  await duck.run('DELETE FROM summary_dirty_months');
}
