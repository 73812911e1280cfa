import type { DuckDBConnection } from '@duckdb/node-api';
import { LruMap } from '../../lru-map.ts';
import type { ReadModelStatus } from '../../readmodel/read-model-status.ts';
import { SqlParams } from '../../http/list/sql-params.ts';
import type { ProfitabilityParams, ReportParts } from './profitability.query.ts';
import { monthOf } from './profitability.range.ts';

/**
 * Whether a report is one the read model can keep ready (docs/summaries.md, "Reports kept
 * ready"): one whole calendar month, or twelve whole months (a calendar year, a fiscal year,
 * the last twelve months), of the whole team or of one member (`userId`), without a project or
 * client filter. Any page of it can be served.
 */
export function isKeptPeriod(params: ProfitabilityParams): boolean {
  if (params.projectId ?? params.clientId) return false;
  const { from, to } = params;
  if (from !== monthOf(from).from || to !== monthOf(to).to) return false;
  const months = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));
  const span = months(to) - months(from);
  return span === 0 || span === 11;
}

/**
 * Pages of kept reports read lately, each under the version it was kept for, in memory: a
 * dashboard asks for the same few pages again and again. A version is never given twice in a
 * process (a DuckDB sequence), and the report kept under one is always the same text, so a
 * page found under its period's current version is the kept one.
 *
 * The periods' current versions are remembered too, until the next read-model commit: the
 * sync gives versions only in its commits, and reports each through `status` before anyone
 * waiting for it is released (as the record cache relies on). A page found in memory under a
 * remembered version costs no statement (one member's month on the 10M-entry workspace:
 * 10.6 ms p50 reading the texts, 2.6 reading the version, 0.8 with neither). The least
 * recently used pages leave beyond `capacity` characters.
 */
export class KeptPages {
  private readonly pages: LruMap<string, { parts: ReportParts; size: number }>;
  /** Current versions by period, as of the last commit reported. */
  private readonly versions = new Map<string, string>();
  /** Commits reported so far: a version read before one is not remembered after it. */
  private commits = 0;

  constructor(
    status: ReadModelStatus,
    private readonly capacity = 64 * 1024 * 1024,
  ) {
    this.pages = new LruMap(capacity, { weigh: (page) => page.size });
    // A read-model commit: any period's version may have moved.
    status.onChange(() => {
      this.commits++;
      this.versions.clear();
    });
  }

  /** How many commits were reported so far (pass to `rememberVersion`). */
  get commitCount(): number {
    return this.commits;
  }

  /** The period's version as of the last commit, when a request read it since. */
  version(period: string): string | undefined {
    return this.versions.get(period);
  }

  /** The period's `version`, read in a snapshot taken when `commitCount` was `commits`. */
  rememberVersion(period: string, version: string, commits: number): void {
    if (commits === this.commits) this.versions.set(period, version);
  }

  get(key: string): ReportParts | undefined {
    return this.pages.get(key)?.parts;
  }

  /** Keeps `parts` under `key`, unless it is over a quarter of the capacity. */
  set(key: string, parts: ReportParts): void {
    const size = pageSize(parts);
    if (size > this.capacity / 4) return;
    this.pages.set(key, { parts, size });
  }
}

/** A page's size in characters: its texts' lengths. */
function pageSize(parts: ReportParts): number {
  return [
    parts.summary,
    ...parts.members,
    ...parts.unallocatedRevenue,
    ...parts.unreconciledReceipts,
    ...parts.missingFx,
    ...parts.fxRates,
  ].reduce((sum, text) => sum + text.length, 0);
}

/**
 * The kept report of the request's period (and member, with `userId`), its page of members
 * picked by place, when it is current: written under the version the sync last gave the
 * period (else undefined, and the report is computed). One statement, so the version compared
 * and the rows read come from one snapshot: no transaction is needed around it (two statements
 * in one took 13 ms for one member's month on the 10M-entry workspace, this one 10). With
 * `pages`, a page read before under the period's current version is served from there.
 */
export async function readKeptReport(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
  pages?: KeptPages,
): Promise<ReportParts | undefined> {
  if (!isKeptPeriod(params)) return undefined;
  const sql = new SqlParams();
  const period = `workspace_id = ${sql.bind(params.workspaceId, 'UUID')}
    AND period_from = ${sql.bind(params.from, 'DATE')}
    AND period_to = ${sql.bind(params.to, 'DATE')}`;
  const user =
    params.userId === undefined
      ? 'user_id IS NULL'
      : `user_id = ${sql.bind(params.userId, 'UUID')}`;
  const periodKey = [params.workspaceId, params.from, params.to].join(' ');
  const pageKey = (version: string) =>
    [periodKey, params.userId ?? '', version, params.page, params.perPage].join(' ');
  const commits = pages?.commitCount ?? 0;
  if (pages !== undefined) {
    let current = pages.version(periodKey);
    if (current === undefined) {
      const versionSql = `SELECT CAST(version AS VARCHAR) FROM profitability_period_versions
        WHERE ${period}`;
      const [row] = (
        await connection.runAndReadAll(versionSql, sql.valuesIn(versionSql))
      ).getRows() as [string][];
      // Never versioned: nothing is kept for the period.
      if (row === undefined) return undefined;
      current = row[0];
      pages.rememberVersion(periodKey, current, commits);
    }
    const kept = pages.get(pageKey(current));
    if (kept !== undefined) return kept;
  }
  // The report's row first (place 0), then the page's members, each its own row: one text of
  // them all took DuckDB longer to join (string_agg) than the client takes to decode 25 values.
  const text = `
    WITH report AS (
      SELECT * FROM profitability_period_reports
      WHERE ${period} AND ${user}
        AND version = (SELECT version FROM profitability_period_versions WHERE ${period}))
    SELECT 0 AS place, base_currency AS json, CAST(version AS VARCHAR) AS version,
      CAST(member_total AS VARCHAR) AS member_total,
      CAST(missing_rate_count AS VARCHAR) AS missing_rate_count, summary, unallocated_revenue,
      unreconciled_receipts, missing_fx, fx_rates
    FROM report
    UNION ALL
    SELECT position, json, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM profitability_period_members
    WHERE ${period} AND ${user} AND version = (SELECT version FROM report)
      AND position > ${sql.bind((params.page - 1) * params.perPage, 'BIGINT')}
      AND position <= ${sql.bind(params.page * params.perPage, 'BIGINT')}
    ORDER BY place`;
  const rows = (await connection.runAndReadAll(text, sql.valuesIn(text))).getRows() as [
    bigint,
    ...(string | null)[],
  ][];
  const [report, ...members] = rows;
  if (report === undefined) return undefined;
  const [, baseCurrency, version, memberTotal, missingRateCount, summary, ...lists] = report as [
    bigint,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  // Each list is one text already: an empty one is no item.
  const [unallocated, unreconciled, missingFx, fxRates] = lists.map((joined) =>
    joined === '' ? [] : [joined],
  ) as [string[], string[], string[], string[]];
  const parts: ReportParts = {
    baseCurrency,
    memberTotal: Number(memberTotal),
    missingRateCount: Number(missingRateCount),
    summary,
    members: members.map(([, json]) => json as string),
    unallocatedRevenue: unallocated,
    unreconciledReceipts: unreconciled,
    missingFx,
    fxRates,
  };
  if (pages !== undefined) {
    pages.set(pageKey(version), parts);
    pages.rememberVersion(periodKey, version, commits);
  }
  return parts;
}
