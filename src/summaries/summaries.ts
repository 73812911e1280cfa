import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Read-model tables of the summaries: derived in DuckDB from the copied tables, never copied
 * from PostgreSQL (docs/summaries.md).
 */
export const SUMMARY_TABLES = [
  'team_bill_line_sums',
  'payee_entry_pay',
  'summary_dirty_bills',
  'summary_dirty_entries',
] as const;

/** A summary table, the macro it equals, and the dirty-key table that macro's refresh reads. */
interface Summary {
  table: string;
  /** SELECT of the summary's rows: `all` true for every row, false for the dirty keys only. */
  rows(all: boolean): string;
  key: string;
  dirty: string;
}

const SUMMARIES: readonly Summary[] = [
  {
    table: 'team_bill_line_sums',
    rows: (all) => `FROM team_bill_line_sums_for(${all})`,
    key: 'bill_id',
    dirty: 'summary_dirty_bills',
  },
  {
    table: 'payee_entry_pay',
    rows: (all) => `SELECT * FROM payee_entry_rates_for(${all}) WHERE is_payable`,
    key: 'time_entry_id',
    dirty: 'summary_dirty_entries',
  },
];

/**
 * Builds every summary from scratch, inside the caller's open transaction (the first load's,
 * or a truncate's), so the summaries are equal to the rows they are loaded with.
 */
export async function rebuildSummaries(duck: DuckDBConnection): Promise<void> {
  for (const summary of SUMMARIES) {
    await duck.run(`DELETE FROM ${summary.table}`);
    await duck.run(`INSERT INTO ${summary.table} ${summary.rows(true)}`);
  }
}

/** The ids a change file (`source`, columns as text) names, as UUIDs. */
const ids = (source: string, column = 'id') =>
  `SELECT DISTINCT CAST(${column} AS UUID) FROM ${source} WHERE ${column} IS NOT NULL`;

/** The entries of the users of some payees (a payee's work is its user's entries). */
const entriesOfPayees = (payeeIds: string) =>
  `SELECT e.id FROM time_entries e
   WHERE e.user_id IN (SELECT user_id FROM payees WHERE id IN (${payeeIds}))`;

/**
 * Which summary keys a change of each table makes stale, read from the read model as it stands.
 * Each is run both before and after the change file is applied: before, the rows the change
 * replaces still name their old entry, bill or user (a moved line, a payee given to another
 * user); after, the new rows name theirs. Delete lines of a change file carry keys only.
 */
const DIRTY: Record<
  string,
  { bills?: (source: string) => string; entries?: (source: string) => string }
> = {
  time_entries: { entries: (source) => ids(source) },
  payees: { entries: (source) => entriesOfPayees(ids(source)) },
  payee_rates: {
    entries: (source) =>
      entriesOfPayees(`SELECT payee_id FROM payee_rates WHERE id IN (${ids(source)})`),
  },
  team_bills: {
    bills: (source) => ids(source),
    entries: (source) =>
      `SELECT time_entry_id FROM team_bill_lines
       WHERE bill_id IN (${ids(source)}) AND time_entry_id IS NOT NULL`,
  },
  team_bill_lines: {
    bills: (source) => `SELECT bill_id FROM team_bill_lines WHERE id IN (${ids(source)})`,
    entries: (source) =>
      `SELECT time_entry_id FROM team_bill_lines
       WHERE id IN (${ids(source)}) AND time_entry_id IS NOT NULL`,
  },
};

/**
 * The summaries' share of one sync batch flush (ChangeBatch.flush), like the search index's:
 * told about each table's change file before and after it is applied, it collects the stale
 * keys, then refreshes them once all tables are applied, in the same DuckDB transaction. A
 * flush that touches no summarised table costs nothing here.
 */
export class SummaryUpdate {
  private touched = false;

  async beforeApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    await this.collect(duck, table, source);
  }

  async afterApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    await this.collect(duck, table, source);
  }

  /** After every table of the flush is applied: refreshes the stale keys. */
  async refresh(duck: DuckDBConnection): Promise<void> {
    if (!this.touched) return;
    for (const summary of SUMMARIES) {
      await duck.run(
        `DELETE FROM ${summary.table} WHERE ${summary.key} IN (SELECT ${summary.key} FROM ${summary.dirty})`,
      );
      await duck.run(`INSERT INTO ${summary.table} ${summary.rows(false)}`);
      await duck.run(`DELETE FROM ${summary.dirty}`);
    }
    this.touched = false;
  }

  private async collect(duck: DuckDBConnection, table: string, source: string) {
    const dirty = DIRTY[table];
    if (!dirty) return;
    this.touched = true;
    if (dirty.bills) await duck.run(`INSERT INTO summary_dirty_bills ${dirty.bills(source)}`);
    if (dirty.entries) await duck.run(`INSERT INTO summary_dirty_entries ${dirty.entries(source)}`);
  }
}
