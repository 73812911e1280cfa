import type { DuckDBConnection } from '@duckdb/node-api';
import type { DerivedBatch } from './derived-tables.ts';

/**
 * The keys of one kind that a change file makes stale: a SELECT of them, read from the read
 * model as it stands, given the change file's table `source` (its columns as text).
 */
export type StaleKeys = (source: string) => string;

/** The ids a change file (`source`, columns as text) names, as UUIDs. */
export const ids = (source: string, column = 'id') =>
  `SELECT DISTINCT CAST(${column} AS UUID) FROM ${source} WHERE ${column} IS NOT NULL`;

/** The entries of the users of some payees (a payee's work is its user's entries). */
export const entriesOfPayees = (payeeIds: string) =>
  `SELECT e.id FROM time_entries e
   WHERE e.user_id IN (SELECT user_id FROM payees WHERE id IN (${payeeIds}))`;

/** The entries on the lines of some team bills (a bill's figures share out over its lines). */
export const entriesOfBills = (billIds: string) =>
  `SELECT time_entry_id FROM team_bill_lines
   WHERE bill_id IN (${billIds}) AND time_entry_id IS NOT NULL`;

/** The payees of the pay rates a change file names. */
export const payeesOfRates = (source: string) =>
  `SELECT payee_id FROM payee_rates WHERE id IN (${ids(source)})`;

/** The bills of the team bill lines a change file names. */
export const billsOfLines = (source: string) =>
  `SELECT bill_id FROM team_bill_lines WHERE id IN (${ids(source)})`;

/** The bills the payments a change file names are allocated to. */
export const billsOfPayments = (source: string) =>
  `SELECT bill_id FROM team_payment_allocations WHERE payment_id IN (${ids(source)})`;

/** Which keys a derived part follows, and how it refreshes them. */
export interface StaleKeysRules<Kind extends string> {
  /** Where each kind's keys are collected until the refresh. */
  dirtyTables: Readonly<Record<Kind, string>>;
  /** By copied table: which keys of each kind its change file makes stale. */
  stale: Readonly<Record<string, Partial<Record<Kind, StaleKeys>>>>;
  /**
   * By copied table: keys only the comparison of a change file with the rows it replaces can
   * tell (a workspace whose base currency changes), read before the file is applied.
   */
  staleBefore?: Readonly<Record<string, Partial<Record<Kind, StaleKeys>>>>;
  /**
   * After every table of the flush is applied: refreshes the kinds `marked` holds, emptying
   * their dirty tables.
   */
  refresh(duck: DuckDBConnection, marked: ReadonlySet<Kind>): Promise<void>;
}

/**
 * A derived part's share of one sync batch flush (ChangeBatch.flush), for a part that follows
 * stale keys: told about each table's change file before and after it is applied, it collects
 * the keys each file makes stale into their dirty tables (before: the rows it replaces still
 * name their old keys; after: the new rows name theirs), then refreshes the kinds marked once
 * all tables are applied, in the same DuckDB transaction. A flush that marks none costs
 * nothing more.
 */
export class StaleKeysBatch<Kind extends string> implements DerivedBatch {
  private readonly marked = new Set<Kind>();

  constructor(private readonly rules: StaleKeysRules<Kind>) {}

  async beforeApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    await this.mark(duck, this.rules.staleBefore?.[table], source);
    await this.mark(duck, this.rules.stale[table], source);
  }

  async afterApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    await this.mark(duck, this.rules.stale[table], source);
  }

  async finish(duck: DuckDBConnection): Promise<void> {
    if (this.marked.size > 0) await this.rules.refresh(duck, this.marked);
    this.marked.clear();
  }

  private async mark(
    duck: DuckDBConnection,
    stale: Partial<Record<Kind, StaleKeys>> | undefined,
    source: string,
  ): Promise<void> {
    for (const [kind, keys] of Object.entries(stale ?? {}) as [Kind, StaleKeys][]) {
      await duck.run(`INSERT INTO ${this.rules.dirtyTables[kind]} ${keys(source)}`);
      this.marked.add(kind);
    }
  }
}

/**
 * A derived table keyed by one column, for the keys in its dirty table, which it empties: their
 * rows deleted, then inserted again from the table's macro `<table>_for(false)`.
 */
export async function refreshKeys(
  duck: DuckDBConnection,
  table: string,
  key: string,
  dirty: string,
): Promise<void> {
  await duck.run(`DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${dirty})`);
  await duck.run(`INSERT INTO ${table} FROM ${table}_for(false)`);
  await duck.run(`DELETE FROM ${dirty}`);
}
