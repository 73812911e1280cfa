import type { DuckDBConnection } from '@duckdb/node-api';

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

/**
 * The stale keys a derived part collects during one sync flush, by kind: each kind's keys go
 * into its dirty table, and the kinds marked tell the part's `finish` which refreshes to run
 * (a flush that marks none costs nothing more).
 */
export class DirtyKeys<Kind extends string> {
  private readonly marked = new Set<Kind>();

  /**
   * `dirtyTables`: where each kind's keys are collected until the refresh; `stale`: by copied
   * table, which keys of each kind its change file makes stale.
   */
  constructor(
    private readonly dirtyTables: Readonly<Record<Kind, string>>,
    private readonly stale: Readonly<Record<string, Partial<Record<Kind, StaleKeys>>>>,
  ) {}

  /** Notes the keys the change file of `table` makes stale, if the part follows that table. */
  async collect(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    const stale = this.stale[table];
    if (stale) await this.mark(duck, stale, source);
  }

  /** Notes the keys `stale` reads from the change file `source` as stale. */
  async mark(
    duck: DuckDBConnection,
    stale: Partial<Record<Kind, StaleKeys>>,
    source: string,
  ): Promise<void> {
    for (const [kind, keys] of Object.entries(stale) as [Kind, StaleKeys][]) {
      await duck.run(`INSERT INTO ${this.dirtyTables[kind]} ${keys(source)}`);
      this.marked.add(kind);
    }
  }

  /** Whether keys of `kind` were marked since the last `clear`. */
  has(kind: Kind): boolean {
    return this.marked.has(kind);
  }

  /** Forgets the marked kinds, once their refreshes have emptied the dirty tables. */
  clear(): void {
    this.marked.clear();
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
