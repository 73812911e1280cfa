import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Every summary the sync keeps, each beside the macro it must equal row for row: the tables of
 * src/reports/team-payouts/ and src/reports/profitability/ (docs/summaries.md). The rollups
 * are compared after the facts (macro: the rollup of the stored facts).
 */
export const SUMMARY_MACROS: [summary: string, macro: string][] = [
  ['SELECT * FROM team_bill_figures', 'FROM team_bill_figures_for(true)'],
  ['SELECT * FROM invoice_unallocated_nets', 'FROM invoice_unallocated_nets_for(true)'],
  ['SELECT * FROM payee_entry_pay', 'SELECT * FROM payee_entry_rates WHERE is_payable'],
  ['SELECT * FROM payee_unpaid_totals', 'FROM payee_unpaid_totals_for(true)'],
  [
    'SELECT * FROM profitability_month_facts',
    'FROM profitability_month_facts_for(true, NULL, NULL)',
  ],
  [
    'SELECT * FROM profitability_member_days',
    'FROM profitability_member_days_for(true, NULL, NULL)',
  ],
  [
    'SELECT * FROM profitability_member_months',
    'FROM profitability_member_months_for(true, NULL, NULL)',
  ],
];

/** The rows of `sql`, each as DuckDB's text of the row, sorted. */
export async function rowsOf(duck: DuckDBConnection, sql: string): Promise<string[]> {
  const reader = await duck.runAndReadAll(`SELECT CAST(t AS VARCHAR) FROM (${sql}) t`);
  return reader
    .getRows()
    .map((r) => String(r[0]))
    .sort();
}

/**
 * The priced facts as stored, and profitability_facts_for of every workspace priced whole: its
 * inputs filled with every live, stopped entry and their lines (rolled back after).
 */
export async function factsBoth(duck: DuckDBConnection): Promise<[string[], string[]]> {
  const kept = await rowsOf(duck, 'SELECT * FROM profitability_facts');
  const computed: string[] = [];
  await duck.run('BEGIN TRANSACTION');
  try {
    await duck.run(
      `INSERT INTO fact_input_entries
       SELECT id, workspace_id, user_id, project_id, entry_date, duration_seconds, billable
       FROM time_entries WHERE deleted_at IS NULL AND NOT is_running`,
    );
    await duck.run(
      `INSERT INTO fact_input_bill_lines
       SELECT id, time_entry_id, bill_id, amount FROM team_bill_lines
       WHERE kind = 'TIME' AND time_entry_id IS NOT NULL`,
    );
    await duck.run(
      `INSERT INTO fact_input_invoice_lines
       SELECT id, time_entry_id, invoice_id, amount FROM invoice_lines
       WHERE time_entry_id IS NOT NULL`,
    );
    const workspaces = await duck.runAndReadAll('SELECT CAST(id AS VARCHAR) FROM workspaces');
    for (const [ws] of workspaces.getRows() as [string][])
      computed.push(
        ...(await rowsOf(
          duck,
          `SELECT CAST('${ws}' AS UUID) AS workspace_id, *
           FROM profitability_facts_for(CAST('${ws}' AS UUID))`,
        )),
      );
  } finally {
    await duck.run('ROLLBACK');
  }
  return [kept, computed.sort()];
}
