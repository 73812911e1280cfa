import type {
  DuckDBConnection,
  DuckDBPreparedStatement,
  DuckDBResultReader,
} from '@duckdb/node-api';
import { LruMap } from '../lru-map.ts';

/** How many statements a cache planned, and how many runs reused a plan. */
export interface PlanCounts {
  planned: number;
  reused: number;
}

/**
 * Statements planned once and run again, for one read-model connection, which one request
 * uses at a time (ConnectionPool); docs/summaries.md, "Plans kept between requests". DuckDB
 * binds and optimizes a large statement in 25-40 ms (the profitability report's), which is
 * most of a small report; a prepared statement without parameters keeps its plan (DuckDB
 * rebinds it itself when the catalog changes).
 *
 * A plan is only reused for the data it was made for. DuckDB plans with the tables' statistics
 * (min/max of each column, for instance), which only widen as rows come in: a filter that no
 * row matched when the plan was made may be planned away, and a row that matches it later
 * would be missed by that plan. So every plan belongs to a data version, read in the same
 * transaction that runs it (`readDataVersion`): the read-model commit its snapshot shows.
 * Every row that snapshot shows was written before that commit, so before any plan made in
 * it; a transaction that shows another version drops the connection's plans and makes new
 * ones. Statements take no parameters (values are literals, checked by form: SqlParams), so
 * the SQL text is the key; the least recently used plan leaves beyond `capacity`.
 *
 * A plan that has run holds DuckDB memory until it is dropped: the rows of its materialized
 * CTEs (measured on the 10M-entry workspace: a year's report 62 MB, a month's 25 MB, one
 * member's 7 MB), counted against the read model's memory limit. Hence two plans per
 * connection, and a pool keeps at most four idle connections.
 */
export class PlanCache {
  private version: string | undefined;
  private readonly plans: LruMap<string, DuckDBPreparedStatement>;

  constructor(
    private readonly connection: DuckDBConnection,
    /** Plans made and plans reused, added to (shared by a pool's connections). */
    readonly counts: PlanCounts = { planned: 0, reused: 0 },
    capacity = 2,
  ) {
    this.plans = new LruMap(capacity, { onEvict: (_, plan) => plan.destroySync() });
  }

  /**
   * Runs `sql` (no parameters) in the connection's open transaction, whose data version
   * `readDataVersion` read, and returns its rows.
   */
  async runAndReadAll(sql: string, version: string): Promise<DuckDBResultReader> {
    return (await this.plan(sql, version)).runAndReadAll();
  }

  /** Drops every plan (before the connection closes, or to measure planning). */
  clear(): void {
    for (const plan of this.plans.values()) plan.destroySync();
    this.plans.clear();
    this.version = undefined;
  }

  private async plan(sql: string, version: string): Promise<DuckDBPreparedStatement> {
    if (version !== this.version) {
      this.clear();
      this.version = version;
    }
    const kept = this.plans.get(sql);
    if (kept) {
      this.counts.reused++;
      return kept;
    }
    const plan = await this.connection.prepare(sql);
    this.plans.set(sql, plan);
    this.counts.planned++;
    return plan;
  }
}

/**
 * The read-model commit the open transaction's snapshot shows: every commit of the sync
 * (a first load, a batch) rewrites sync_state in its own transaction (src/sync/sync-state.ts),
 * and `synced_at` is that transaction's start time. Call inside the transaction that runs the
 * plans; '' before any sync.
 */
export async function readDataVersion(connection: DuckDBConnection): Promise<string> {
  const reader = await connection.runAndReadAll(
    `SELECT concat_ws('/', CAST(epoch_us(synced_at) AS VARCHAR), source_lsn, source_snapshot, full_loads)
     FROM sync_state`,
  );
  return reader
    .getRows()
    .map(([row]) => String(row))
    .join('|');
}
