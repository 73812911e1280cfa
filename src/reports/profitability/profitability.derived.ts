import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DerivedTables } from '../../readmodel/derived-tables.ts';
import {
  billsOfLines,
  billsOfPayments,
  StaleKeysBatch,
  entriesOfBills,
  entriesOfPayees,
  ids,
  payeesOfRates,
  refreshKeys,
  sourcesByKind,
  staleEntries,
  type StaleKeys,
  type StaleKeysRules,
} from '../../readmodel/stale-keys.ts';
import { entryMonthRuns } from '../../readmodel/entry-month-runs.ts';
import { SqlParams } from '../../readmodel/sql-params.ts';
import { refreshFactsInProcess } from './fact-refresh.ts';
import { rollupTablesSql, rollupViews } from './metrics.ts';

/**
 * Read-model tables of the profitability report: derived in DuckDB from the copied tables and
 * team_bill_figures, never copied from PostgreSQL (docs/summaries.md). fact_input_* are work
 * tables of priceEntries, empty between statements.
 */
export const PROFITABILITY_TABLES = [
  'profitability_facts',
  'profitability_month_facts',
  'profitability_member_days',
  'profitability_member_months',
  'invoice_unallocated_nets',
  'summary_dirty_invoices',
  'summary_dirty_facts',
  'summary_dirty_fact_days',
  'fact_input_entries',
  'fact_input_bill_lines',
  'fact_input_invoice_lines',
] as const;

/**
 * Entries priced per statement when the facts are built whole. Each statement also reads every
 * bill and invoice line once to find the run's, which favours larger runs; but its joins and
 * windows grow past the CPU's caches and then past the read model's memory limit, which favours
 * smaller ones. Measured on the 10M-entry workspace (rebuilding the profitability tables): runs
 * of 300k entries 38.7 s, 600k 38.4 s, 1.2M 42.2 s, 3M 59.6 s (docs/summaries.md).
 */
const FACT_ENTRIES_PER_RUN = 600_000;

/**
 * Builds the profitability tables from scratch, inside the caller's open transaction (the first
 * load's, or a truncate's), so they are equal to the rows they are loaded with. Reads
 * team_bill_figures, which teamPayoutTables has rebuilt first. Priced facts go through the same
 * refresh as a sync batch's, by runs of a workspace's months: in one statement, matching ten
 * million entries against millions of bill and invoice lines would outgrow the read model's
 * memory limit.
 */
export async function rebuildProfitabilityTables(
  duck: DuckDBConnection,
  entriesPerRun = FACT_ENTRIES_PER_RUN,
): Promise<void> {
  for (const table of PROFITABILITY_TABLES) await duck.run(`DELETE FROM ${table}`);
  await duck.run('INSERT INTO invoice_unallocated_nets FROM invoice_unallocated_nets_for(true)');
  // Priced facts a run of consecutive months at a time, up to FACT_ENTRIES_PER_RUN entries (about
  // a month of the 10M-entry workspace, a small workspace whole), in entry-date order: each run is
  // appended after the one before, so the table ends up in date order and a report's range of
  // days reads a few row groups. The month rollup is built once, whole, from them.
  for (const run of await entryMonthRuns(duck, entriesPerRun, true)) {
    // The run's months are consecutive among the months with entries: their range of days
    // holds the run's entries only.
    const params = new SqlParams();
    const ws = params.bind(run.workspace, 'UUID');
    const from = params.bind(run.from, 'DATE');
    const to = params.bind(run.to, 'DATE');
    await priceEntries(
      duck,
      `workspace_id = ${ws} AND entry_date BETWEEN ${from} AND ${to}`,
      params.values,
    );
  }
  await duck.run(
    `INSERT INTO profitability_month_facts BY NAME
     SELECT * FROM profitability_month_facts_for(true, NULL, NULL)
     ORDER BY workspace_id, month, user_id, project_id`,
  );
  await duck.run(
    `INSERT INTO profitability_member_days BY NAME
     SELECT * FROM profitability_member_days_for(true, NULL, NULL)
     ORDER BY workspace_id, entry_date, user_id`,
  );
  await duck.run(
    `INSERT INTO profitability_member_months BY NAME
     SELECT * FROM profitability_member_months_for(true, NULL, NULL)
     ORDER BY workspace_id, month, user_id`,
  );
}

/** The entries on the lines of some invoices. */
const entriesOfInvoices = (invoiceIds: string) =>
  `SELECT time_entry_id FROM invoice_lines
   WHERE invoice_id IN (${invoiceIds}) AND time_entry_id IS NOT NULL`;

/** The invoices of the invoice lines a change file names. */
const invoicesOfLines = (source: string) =>
  `SELECT invoice_id FROM invoice_lines WHERE id IN (${ids(source)})`;

/** Every entry of some workspaces (their FX rates or base currency changed). */
const entriesOfWorkspaces = (workspaceIds: string) =>
  `SELECT id FROM time_entries WHERE workspace_id IN (${workspaceIds})`;

type Kind = 'invoices' | 'facts';

/** Where the stale keys of each kind are collected until the refresh. */
const DIRTY_TABLES: Record<Kind, string> = {
  /** Invoices whose unallocated nets (invoice_unallocated_nets) are stale. */
  invoices: 'summary_dirty_invoices',
  /** Entries whose priced facts (profitability_facts) are stale. */
  facts: 'summary_dirty_facts',
};

/** The keys of each kind that a change file names itself (StaleKeysRules.own). */
const OWN: Record<string, Partial<Record<Kind, string>>> = {
  time_entries: { facts: 'id' },
  invoices: { invoices: 'id' },
};

/**
 * Which keys a change of each table makes stale, looked up in the read model as it stands. Each is
 * run both before and after the change file is applied: before, the rows the change replaces
 * still name their old entry, bill, invoice or user (a moved line, an entry moved to another
 * month or member); after, the new rows name theirs. Delete lines of a change file carry keys
 * only.
 */
const STALE: Record<string, Partial<Record<Kind, StaleKeys>>> = {
  payees: {
    facts: (source) => entriesOfPayees(ids(source)),
  },
  payee_rates: {
    facts: (source) => entriesOfPayees(payeesOfRates(source)),
  },
  team_bills: {
    facts: (source) => entriesOfBills(ids(source)),
  },
  team_bill_lines: {
    // A line changes its bill's total, which every line of the bill is paid a share of.
    facts: (source) => entriesOfBills(billsOfLines(source)),
  },
  team_payments: {
    facts: (source) => entriesOfBills(billsOfPayments(source)),
  },
  team_payment_allocations: {
    // Keyed by (payment_id, bill_id): the change file names the bill itself.
    facts: (source) => entriesOfBills(ids(source, 'bill_id')),
  },
  invoices: {
    facts: (source) => entriesOfInvoices(ids(source)),
  },
  invoice_lines: {
    invoices: (source) => invoicesOfLines(source),
    // A line changes its invoice's subtotal, which sets every line's net.
    facts: (source) => entriesOfInvoices(invoicesOfLines(source)),
  },
  // A rate converts the amounts of any entry of its workspace.
  fx_rates: {
    facts: (source) =>
      entriesOfWorkspaces(`SELECT workspace_id FROM fx_rates WHERE id IN (${ids(source)})`),
  },
};

/**
 * Stale entries a batch prices in process (fact-refresh.ts) at most; a batch with more (an FX
 * rate makes every entry of its workspace stale) is priced by profitability_facts_for and its
 * rollups summed again from their macros, as a first load builds them. On the 2,000-entry
 * workspace a batch of one changed entry takes 27 ms in process against 120 from the macros,
 * and the two meet between 100 and 200 entries (docs/summaries.md).
 */
export const IN_PROCESS_ENTRIES = 200;

/** How the profitability part follows a batch's stale facts (profitabilityPart). */
export interface ProfitabilityOptions {
  /** Stale entries priced in process at most (IN_PROCESS_ENTRIES; 0: every batch by the macros). */
  inProcessUpTo?: number;
  /** Told how each batch's stale facts were refreshed. */
  onRefresh?: (how: 'in-process' | 'macros') => void;
}

/**
 * The profitability tables' share of one sync batch flush: their stale invoices and facts. A
 * workspace whose base currency a change file changes (or deletes) makes every fact of it
 * stale, since each amount's conversion changes; that is read before the file is applied,
 * comparing the old row with the new. The refresh runs after the team-payout part's, so the
 * facts price bills from refreshed team_bill_figures. Up to `inProcessUpTo` stale entries are
 * priced in process, the rollups changed by deltas; more, by the macros.
 */
const profitabilityKeys = ({
  inProcessUpTo = IN_PROCESS_ENTRIES,
  onRefresh,
}: ProfitabilityOptions): StaleKeysRules<Kind> => ({
  dirtyTables: DIRTY_TABLES,
  own: OWN,
  stale: STALE,
  staleBefore: {
    workspaces: {
      facts: (source) =>
        entriesOfWorkspaces(`SELECT w.id FROM workspaces w JOIN ${source} s ON w.id = CAST(s.id AS UUID)
         WHERE s.base_currency IS DISTINCT FROM w.base_currency`),
    },
  },
  async refresh(duck, stale) {
    if (stale.has('invoices'))
      await refreshKeys(duck, stale, 'invoices', 'invoice_unallocated_nets', 'invoice_id');
    if (!stale.has('facts')) return;
    const entries = staleEntries(stale, 'facts');
    if (await refreshFactsInProcess(duck, entries, inProcessUpTo)) {
      onRefresh?.('in-process');
    } else {
      await refreshFacts(duck, entries.select);
      onRefresh?.('macros');
    }
  },
});

/**
 * The profitability tables as the sync keeps them (src/readmodel/derived-tables.ts), pricing up
 * to `inProcessUpTo` stale entries of a batch in process (ProfitabilityOptions; a test sets 0
 * to follow every batch with the macros). The priced facts read team_bill_figures, which
 * teamPayoutTables keeps: register this part after that one (src/cli/derived-tables.ts). The
 * sync calls the parts in list order, in every flush's `finish` and every rebuild, so the bills'
 * figures are current when the facts are priced. Rebuilt from the committed rows after a first
 * load's copy, never inside its transaction (docs/sync.md).
 */
export function profitabilityPart(options: ProfitabilityOptions = {}): DerivedTables {
  const keys = profitabilityKeys(options);
  const { invoices, facts } = sourcesByKind(keys);
  const sources: Record<(typeof PROFITABILITY_TABLES)[number], readonly string[]> = {
    invoice_unallocated_nets: invoices,
    summary_dirty_invoices: invoices,
    profitability_facts: facts,
    profitability_month_facts: facts,
    profitability_member_days: facts,
    profitability_member_months: facts,
    summary_dirty_facts: facts,
    summary_dirty_fact_days: facts,
    fact_input_entries: facts,
    fact_input_bill_lines: facts,
    fact_input_invoice_lines: facts,
  };
  return {
    name: 'profitability',
    tables: PROFITABILITY_TABLES,
    sources,
    sqlDir: path.join(import.meta.dirname, 'sql'),
    generatedSql: { tables: rollupTablesSql(), views: rollupViews() },
    rebuild: (duck) => rebuildProfitabilityTables(duck),
    batch: () => new StaleKeysBatch(keys),
  };
}

/** The profitability tables as the server keeps them (profitabilityPart). */
export const profitabilityTables: DerivedTables = profitabilityPart();

/**
 * profitability_facts for the stale entries (`dirty`, a SELECT of their ids): their rows
 * deleted, then inserted again from profitability_facts_for (per workspace, in entry-date
 * order); then the rollup rows of those facts, before and after, summed again.
 */
async function refreshFacts(duck: DuckDBConnection, dirty: string): Promise<void> {
  // The rollup keys of the dirty entries' old facts (the new ones' are marked as they are priced).
  await duck.run(`INSERT INTO summary_dirty_fact_days
    SELECT DISTINCT workspace_id, entry_date, user_id, project_id
    FROM profitability_facts WHERE time_entry_id IN (${dirty})`);
  await duck.run(`DELETE FROM profitability_facts WHERE time_entry_id IN (${dirty})`);
  await priceEntries(duck, `id IN (${dirty})`, {}, true);
  await refreshRollups(duck);
}

/**
 * Appends the priced facts of the live, stopped entries that `where` (a condition on
 * time_entries, with `values` for its parameters) selects: the entries and their lines are
 * first copied into the fact_input_* tables, which profitability_facts_for prices, workspace by
 * workspace, in entry-date order; then emptied. With `markRollups`, the rollup keys of the new
 * facts go to summary_dirty_fact_days.
 */
async function priceEntries(
  duck: DuckDBConnection,
  where: string,
  values: SqlParams['values'] = {},
  markRollups = false,
): Promise<void> {
  await duck.run(
    `INSERT INTO fact_input_entries
     SELECT id, workspace_id, user_id, project_id, entry_date, duration_seconds, billable
     FROM time_entries
     WHERE deleted_at IS NULL AND NOT is_running AND ${where}`,
    values,
  );
  await duck.run(
    `INSERT INTO fact_input_bill_lines
     SELECT id, time_entry_id, bill_id, amount FROM team_bill_lines
     WHERE kind = 'TIME' AND time_entry_id IN (SELECT time_entry_id FROM fact_input_entries)`,
  );
  await duck.run(
    `INSERT INTO fact_input_invoice_lines
     SELECT id, time_entry_id, invoice_id, amount FROM invoice_lines
     WHERE time_entry_id IN (SELECT time_entry_id FROM fact_input_entries)`,
  );
  const workspaces = (
    await duck.runAndReadAll(
      'SELECT DISTINCT CAST(workspace_id AS VARCHAR) FROM fact_input_entries ORDER BY 1',
    )
  ).getRows();
  for (const [workspace] of workspaces) {
    const params = new SqlParams();
    const ws = params.bind(String(workspace), 'UUID');
    await duck.run(
      `INSERT INTO profitability_facts BY NAME
       SELECT ${ws} AS workspace_id, * FROM profitability_facts_for(${ws})
       ORDER BY entry_date`,
      params.values,
    );
  }
  // The rollup keys of the new facts (an entry's facts share its date, member and project).
  if (markRollups)
    await duck.run(
      `INSERT INTO summary_dirty_fact_days
       SELECT DISTINCT workspace_id, entry_date, user_id, project_id FROM fact_input_entries`,
    );
  for (const table of ['fact_input_entries', 'fact_input_bill_lines', 'fact_input_invoice_lines'])
    await duck.run(`DELETE FROM ${table}`);
}

/**
 * The rollups of the facts for the keys in summary_dirty_fact_days, which it empties: their
 * rows deleted, then summed again from the facts of their days or months only (the facts lie
 * in date order, so bounds passed as literals skip the rest): profitability_month_facts per
 * (month, member, project), profitability_member_days per (day, member), then
 * profitability_member_months per (month, member) from those days.
 */
async function refreshRollups(duck: DuckDBConnection): Promise<void> {
  const [bounds] = (
    await duck.runAndReadAll(
      `SELECT CAST(min(entry_date) AS VARCHAR), CAST(max(entry_date) AS VARCHAR),
         CAST(entry_month(min(entry_date)) AS VARCHAR), CAST(last_day(max(entry_date)) AS VARCHAR)
       FROM summary_dirty_fact_days`,
    )
  ).getRows();
  const [firstDay, lastDay, firstMonthDay, lastMonthDay] = (bounds ?? []).map((v) =>
    v === null ? undefined : String(v),
  );
  if (!firstDay || !lastDay || !firstMonthDay || !lastMonthDay) return;
  const params = new SqlParams();
  const days = `${params.bind(firstDay, 'DATE')}, ${params.bind(lastDay, 'DATE')}`;
  const months = `${params.bind(firstMonthDay, 'DATE')}, ${params.bind(lastMonthDay, 'DATE')}`;
  const refresh = async (table: string, key: string, keys: string, insert: string) => {
    await duck.run(
      `DELETE FROM ${table} t USING (SELECT DISTINCT ${keys} FROM summary_dirty_fact_days) d
       WHERE ${key
         .split(', ')
         .map((k) => `t.${k} = d.${k}`)
         .join(' AND ')}`,
    );
    await duck.run(insert, params.valuesIn(insert));
  };
  await refresh(
    'profitability_month_facts',
    'workspace_id, month, user_id, project_id',
    'workspace_id, entry_month(entry_date) AS month, user_id, project_id',
    `INSERT INTO profitability_month_facts BY NAME
     SELECT * FROM profitability_month_facts_for(false, ${months})
     ORDER BY workspace_id, month, user_id, project_id`,
  );
  await refresh(
    'profitability_member_days',
    'workspace_id, entry_date, user_id',
    'workspace_id, entry_date, user_id',
    `INSERT INTO profitability_member_days BY NAME
     SELECT * FROM profitability_member_days_for(false, ${days})
     ORDER BY workspace_id, entry_date, user_id`,
  );
  await refresh(
    'profitability_member_months',
    'workspace_id, month, user_id',
    'workspace_id, entry_month(entry_date) AS month, user_id',
    `INSERT INTO profitability_member_months BY NAME
     SELECT * FROM profitability_member_months_for(false, ${months})
     ORDER BY workspace_id, month, user_id`,
  );
  await duck.run('DELETE FROM summary_dirty_fact_days');
}
