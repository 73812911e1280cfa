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
import { refreshPayableInProcess } from './payable-refresh.ts';

/**
 * Read-model tables of the team-payout reports: derived in DuckDB from the copied tables, never
 * copied from PostgreSQL (docs/summaries.md). team_bill_figures is also read by profitability.
 */
export const TEAM_PAYOUT_TABLES = [
  'team_bill_figures',
  'payee_entry_pay',
  'payee_unpaid_totals',
  'summary_dirty_bills',
  'summary_dirty_entries',
  'summary_dirty_payees',
] as const;

/**
 * Entries per statement when payee_entry_pay is built whole, a run of months at a time (bounds
 * the memory of its joins). Each statement also reads every bill line once, which favours fewer
 * runs (docs/summaries.md, "The first build").
 */
const ENTRIES_PER_RUN = 2_000_000;

/**
 * Builds the team-payout tables from scratch, inside the caller's open transaction (the first
 * load's, or a truncate's), so they are equal to the rows they are loaded with. payee_entry_pay
 * is filled a run of months at a time (entryMonthRuns) by the macro a sync batch refreshes it
 * with: in one statement, ten million entries would outgrow the read model's memory limit.
 */
export async function rebuildTeamPayoutTables(
  duck: DuckDBConnection,
  entriesPerRun = ENTRIES_PER_RUN,
): Promise<void> {
  for (const table of TEAM_PAYOUT_TABLES) await duck.run(`DELETE FROM ${table}`);
  await duck.run('INSERT INTO team_bill_figures FROM team_bill_figures_for(true)');
  for (const run of await entryMonthRuns(duck, entriesPerRun, false)) {
    const params = new SqlParams();
    const days = `${params.bind(run.from, 'DATE')}, ${params.bind(run.to, 'DATE')}`;
    const insert = `INSERT INTO payee_entry_pay
      SELECT * FROM payee_entry_rates_for(true, ${days}) WHERE is_payable`;
    await duck.run(insert, params.valuesIn(insert));
  }
  await duck.run('INSERT INTO payee_unpaid_totals FROM payee_unpaid_totals_for(true)');
}

type Kind = 'bills' | 'entries';

/** Where the stale keys of each kind are collected until the refresh. */
const DIRTY_TABLES: Record<Kind, string> = {
  /** Bills whose figures (team_bill_figures) are stale. */
  bills: 'summary_dirty_bills',
  /** Entries whose payee_entry_pay row is stale. */
  entries: 'summary_dirty_entries',
};

/** The keys of each kind that a change file names itself (StaleKeysRules.own). */
const OWN: Record<string, Partial<Record<Kind, string>>> = {
  time_entries: { entries: 'id' },
  team_bills: { bills: 'id' },
  // Keyed by (payment_id, bill_id): the change file names the bill itself.
  team_payment_allocations: { bills: 'bill_id' },
};

/**
 * Which keys a change of each table makes stale, looked up in the read model as it stands.
 * Each is run both before and after the change file is applied: before, the rows the change
 * replaces still name their old entry, bill or user (a moved line); after, the new rows name
 * theirs. Delete lines of a change file carry keys only.
 */
const STALE: Record<string, Partial<Record<Kind, StaleKeys>>> = {
  payees: {
    entries: (source) => entriesOfPayees(ids(source)),
  },
  payee_rates: {
    entries: (source) => entriesOfPayees(payeesOfRates(source)),
  },
  team_bills: {
    entries: (source) => entriesOfBills(ids(source)),
  },
  team_bill_lines: {
    bills: (source) => billsOfLines(source),
    entries: (source) =>
      `SELECT time_entry_id FROM team_bill_lines
       WHERE id IN (${ids(source)}) AND time_entry_id IS NOT NULL`,
  },
  team_payments: {
    bills: (source) => billsOfPayments(source),
  },
};

/**
 * Stale entries whose payable rows a batch refreshes in process (payable-refresh.ts) at most; a
 * batch with more (a payee's rate makes all its user's entries stale) refreshes them with
 * payee_entry_rates_for and the payees' totals with payee_unpaid_totals_for. The same limit as
 * profitability's (IN_PROCESS_ENTRIES there).
 */
export const IN_PROCESS_ENTRIES = 200;

/** How the team-payout part follows a batch's stale entries (teamPayoutPart). */
export interface TeamPayoutOptions {
  /** Stale entries refreshed in process at most (IN_PROCESS_ENTRIES; 0: every batch by the macros). */
  inProcessUpTo?: number;
  /** Told how each batch's stale entries were refreshed. */
  onRefresh?: (how: 'in-process' | 'macros') => void;
}

/** The team-payout tables' share of one sync batch flush: their stale bills and entries. */
const teamPayoutKeys = ({
  inProcessUpTo = IN_PROCESS_ENTRIES,
  onRefresh,
}: TeamPayoutOptions): StaleKeysRules<Kind> => ({
  dirtyTables: DIRTY_TABLES,
  own: OWN,
  stale: STALE,
  async refresh(duck, stale) {
    if (stale.has('bills')) await refreshKeys(duck, stale, 'bills', 'team_bill_figures', 'bill_id');
    if (!stale.has('entries')) return;
    if (await refreshPayableInProcess(duck, staleEntries(stale, 'entries'), inProcessUpTo)) {
      onRefresh?.('in-process');
      return;
    }
    await stale.fill(duck, 'entries');
    await refreshEntries(duck);
    await duck.run(
      'DELETE FROM payee_unpaid_totals WHERE payee_id IN (SELECT payee_id FROM summary_dirty_payees)',
    );
    await duck.run('INSERT INTO payee_unpaid_totals FROM payee_unpaid_totals_for(false)');
    await duck.run('DELETE FROM summary_dirty_payees');
    onRefresh?.('macros');
  },
});

/**
 * The team-payout tables as the sync keeps them (src/readmodel/derived-tables.ts), refreshing
 * up to `inProcessUpTo` stale entries of a batch in process (TeamPayoutOptions; a test sets 0
 * to follow every batch with the macros). Rebuilt from the committed rows after a first load's
 * copy, never inside its transaction (docs/sync.md). Registered before profitabilityTables,
 * whose facts read team_bill_figures.
 */
export function teamPayoutPart(options: TeamPayoutOptions = {}): DerivedTables {
  const keys = teamPayoutKeys(options);
  const { bills, entries } = sourcesByKind(keys);
  const sources: Record<(typeof TEAM_PAYOUT_TABLES)[number], readonly string[]> = {
    team_bill_figures: bills,
    summary_dirty_bills: bills,
    payee_entry_pay: entries,
    payee_unpaid_totals: entries,
    summary_dirty_entries: entries,
    summary_dirty_payees: entries,
  };
  return {
    name: 'team-payouts',
    tables: TEAM_PAYOUT_TABLES,
    sources,
    sqlDir: path.join(import.meta.dirname, 'sql'),
    rebuild: (duck) => rebuildTeamPayoutTables(duck),
    batch: () => new StaleKeysBatch(keys),
  };
}

/** The team-payout tables as the server keeps them (teamPayoutPart). */
export const teamPayoutTables: DerivedTables = teamPayoutPart();

/**
 * payee_entry_pay for the entries in summary_dirty_entries; the payees of their rows, before
 * and after, go to summary_dirty_payees (their totals are stale).
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
}
