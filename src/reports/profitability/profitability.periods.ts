import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlParams } from '../../http/list/sql-params.ts';
import type { ReadModel } from '../../readmodel/read-model.ts';
import type { ReadModelStatus } from '../../readmodel/read-model-status.ts';
import { computeReport } from './profitability.query.ts';

// Keeps profitability reports of whole months and twelve months ready (docs/summaries.md,
// "Reports kept ready"). The sync gives a period a new version in the transaction of every
// change to what its report shows (src/summaries/summaries.ts); this computes the report of a
// period whose kept one is of an older version, with the same statement a request would run,
// and writes it under the version it read in the same snapshot. A sync commit that lands
// meanwhile gives the period yet another version, so what this writes then never serves and
// the period is computed again: the kept reports never need a lock against the sync, and the
// sync never waits for them.
//
// Which periods: those somebody asked for. A request computed from the cells asks for its
// period (PeriodReportRefresher.request); from then on the period's kept report is refreshed
// after every commit that makes it stale. Computing every period of every workspace ahead
// would cost a report's fixed 30-100 ms per period and workspace, most never read.

/**
 * A period of a workspace: one whole month or twelve whole months (isKeptPeriod), of the whole
 * team or of one member.
 */
export interface Period {
  workspaceId: string;
  from: string;
  to: string;
  userId?: string;
}

/** Every member of a period on one page. */
const ALL_MEMBERS = Number.MAX_SAFE_INTEGER;

/**
 * Which stale reports to refresh: `kept` those kept (of an older version than their period's),
 * `all` every versioned period's whole-team report, or one period's (refreshed if it is
 * versioned and its kept report is missing or stale).
 */
export type Wanted = 'kept' | 'all' | Period;

const samePeriod = (a: string, b: string) =>
  `${a}.workspace_id = ${b}.workspace_id AND ${a}.period_from = ${b}.period_from
    AND ${a}.period_to = ${b}.period_to`;

/** The kept reports (k) of an older version than their period's (v). */
const STALE_KEPT = `
  FROM profitability_period_reports k
  JOIN profitability_period_versions v ON ${samePeriod('k', 'v')}
  WHERE k.version <> v.version`;

/**
 * The next stale report of `wanted`: the one whose period ends last (the shorter first), so the
 * current month and the twelve months ending with it come before older ones.
 */
function nextStale(wanted: Wanted): string {
  const sql = new SqlParams();
  const columns = `CAST(v.workspace_id AS VARCHAR), CAST(v.period_from AS VARCHAR),
    CAST(v.period_to AS VARCHAR)`;
  const order = 'ORDER BY v.period_to DESC, v.period_from DESC, v.workspace_id';
  if (wanted === 'kept') {
    return `
      SELECT ${columns}, CAST(k.user_id AS VARCHAR), v.version ${STALE_KEPT}
      ${order}, k.user_id NULLS FIRST
      LIMIT 1`;
  }
  const user =
    wanted === 'all' || wanted.userId === undefined
      ? 'NULL::UUID'
      : sql.bind(wanted.userId, 'UUID');
  const which =
    wanted === 'all'
      ? 'true'
      : `v.workspace_id = ${sql.bind(wanted.workspaceId, 'UUID')}
         AND v.period_from = ${sql.bind(wanted.from, 'DATE')}
         AND v.period_to = ${sql.bind(wanted.to, 'DATE')}`;
  return `
    SELECT ${columns}, CAST(${user} AS VARCHAR), v.version
    FROM profitability_period_versions v
    WHERE ${which}
      AND NOT EXISTS (
        SELECT 1 FROM profitability_period_reports r
        WHERE ${samePeriod('r', 'v')} AND r.user_id IS NOT DISTINCT FROM ${user}
          AND r.version = v.version
      )
    ${order}
    LIMIT 1`;
}

export interface RefreshHooks {
  /** Called with the report written, before the refresh commits (tests race a sync here). */
  beforeCommit?: () => Promise<void>;
}

/**
 * Computes and keeps the report of the next stale period of `wanted`, in one transaction on
 * `connection` (not inside one already). Returns the period refreshed, or null when there is
 * none to refresh.
 */
export async function refreshStalePeriod(
  connection: DuckDBConnection,
  wanted: Wanted = 'kept',
  hooks: RefreshHooks = {},
): Promise<Period | null> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const [stale] = (await connection.runAndReadAll(nextStale(wanted))).getRows() as [
      string,
      string,
      string,
      string | null,
      bigint,
    ][];
    if (stale === undefined) {
      await connection.run('ROLLBACK');
      return null;
    }
    const [workspaceId, from, to, userId, version] = stale;
    const period: Period = { workspaceId, from, to, ...(userId === null ? {} : { userId }) };
    const parts = await computeReport(connection, { ...period, page: 1, perPage: ALL_MEMBERS });
    const key = { ws: workspaceId, from, to, user: userId };
    const where = `workspace_id = $ws::UUID AND period_from = $from::DATE AND period_to = $to::DATE
      AND user_id IS NOT DISTINCT FROM $user::UUID`;
    await connection.run(`DELETE FROM profitability_period_reports WHERE ${where}`, key);
    await connection.run(`DELETE FROM profitability_period_members WHERE ${where}`, key);
    await connection.run(
      `INSERT INTO profitability_period_reports VALUES ($ws::UUID, $from::DATE, $to::DATE,
         $user::UUID, $version, $baseCurrency, $memberTotal, $missingRateCount, $summary,
         $unallocatedRevenue, $unreconciledReceipts, $missingFx, $fxRates)`,
      {
        ...key,
        version,
        baseCurrency: parts.baseCurrency,
        memberTotal: BigInt(parts.memberTotal),
        missingRateCount: BigInt(parts.missingRateCount),
        summary: parts.summary,
        unallocatedRevenue: parts.unallocatedRevenue.join(','),
        unreconciledReceipts: parts.unreconciledReceipts.join(','),
        missingFx: parts.missingFx.join(','),
        fxRates: parts.fxRates.join(','),
      },
    );
    const insert = await connection.prepare(
      `INSERT INTO profitability_period_members
       VALUES ($1::UUID, $2::DATE, $3::DATE, $4::UUID, $5, $6, $7)`,
    );
    try {
      for (const [index, json] of parts.members.entries()) {
        insert.bind([workspaceId, from, to, userId, version, BigInt(index + 1), json]);
        await insert.run();
      }
    } finally {
      insert.destroySync();
    }
    await hooks.beforeCommit?.();
    await connection.run('COMMIT');
    return period;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Refreshes the stale periods of `wanted` until none is left, then drops the kept reports of
 * periods the sync no longer versions; returns how many it computed.
 */
export async function refreshStalePeriods(
  connection: DuckDBConnection,
  wanted: Wanted = 'kept',
): Promise<number> {
  let refreshed = 0;
  while ((await refreshStalePeriod(connection, wanted)) !== null) refreshed++;
  await pruneKeptReports(connection);
  return refreshed;
}

/** refreshStalePeriods on a connection of its own. */
export async function keepReportsReady(readModel: ReadModel, wanted: Wanted = 'kept') {
  const connection = await readModel.connect();
  try {
    return await refreshStalePeriods(connection, wanted);
  } finally {
    connection.closeSync();
  }
}

/**
 * Deletes the kept reports of periods the sync no longer versions (a first load forgets every
 * period and versions again those with work). A stale period's report stays until it is
 * refreshed: it marks the period as one somebody reads.
 */
export async function pruneKeptReports(connection: DuckDBConnection): Promise<void> {
  for (const table of ['profitability_period_reports', 'profitability_period_members']) {
    await connection.run(
      `DELETE FROM ${table} k
       WHERE NOT EXISTS (
         SELECT 1 FROM profitability_period_versions v
         WHERE v.workspace_id = k.workspace_id AND v.period_from = k.period_from
           AND v.period_to = k.period_to
       )`,
    );
  }
}

/**
 * Runs the refreshes in the background of a server: a period asked for at once, then, after
 * read-model commits, every stale report that is kept, one at a time. The work after commits
 * takes at most half the time: a pass that took T waits T after it before the next, so a
 * workspace written to without pause (each write makes its current periods stale again) has
 * its kept reports refreshed every 2T rather than the refresher busy for good (a month of the
 * 10M-entry workspace takes about 3 s). A failed refresh is reported and tried again after the
 * next commit; requests are computed from the cells meanwhile.
 */
export class PeriodReportRefresher {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly requested = new Map<string, Period>();
  /** When the next pass after commits may start (ms since 1970). */
  private nextPass = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly readModel: ReadModel,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Refreshes now, and after every commit `status` reports from now on. */
  start(status: ReadModelStatus): void {
    status.onChange(() => this.kick());
    this.kick();
  }

  /** A request computed `period`'s report: keep it ready from now on. */
  request(period: Period): void {
    if (this.stopped) return;
    this.requested.set(
      `${period.workspaceId}/${period.from}/${period.to}/${period.userId ?? ''}`,
      period,
    );
    this.kick();
  }

  /** Resolves once nothing is left to refresh or waiting to be. */
  async idle(): Promise<void> {
    while (this.running ?? this.timer) {
      await (this.running ?? new Promise((resolve) => setTimeout(resolve, 10)));
    }
  }

  /** Resolves once no refresh runs (the current one finished). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const wait = this.nextPass - Date.now();
    if (wait > 0 && this.requested.size === 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.kick();
      }, wait);
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async run(): Promise<void> {
    const connection = await this.readModel.connect();
    const started = Date.now();
    let refreshed = 0;
    try {
      for (const [key, period] of this.requested) {
        this.requested.delete(key);
        if (this.stopped) return;
        if ((await refreshStalePeriod(connection, period)) !== null) refreshed++;
      }
      // As many as were stale when the pass began: under steady writes the same reports turn
      // stale again while others are computed, and the next pass takes them.
      const [[stale]] = (
        await connection.runAndReadAll(`SELECT count(*) ${STALE_KEPT}`)
      ).getRows() as [[bigint]];
      for (let n = 0n; n < stale && !this.stopped; n++) {
        if ((await refreshStalePeriod(connection)) === null) break;
        refreshed++;
      }
      if (refreshed > 0) await pruneKeptReports(connection);
      if (refreshed > 1) {
        this.log(
          `profitability: ${refreshed} reports of whole months and twelve months kept ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
      }
    } catch (error) {
      this.log(
        `profitability: keeping reports ready failed, tried again after the next sync (${error instanceof Error ? error.message : String(error)})`,
      );
    } finally {
      connection.closeSync();
      if (refreshed > 0) {
        this.nextPass = 2 * Date.now() - started;
        // Reports that turned stale during the pass, whose commits came while it ran.
        this.again = true;
      }
    }
  }
}
