import type { DuckDBConnection } from '@duckdb/node-api';
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
 * The kept report of the request's period (and member, with `userId`), its page of members
 * picked by place, when it is current: written under the version the sync last gave the
 * period (else undefined, and the report is computed). Call inside the request's read
 * transaction, so the version compared is the one of the data read.
 */
export async function readKeptReport(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
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
  const reportSql = `
    SELECT
      CAST(r.version AS VARCHAR), r.base_currency, CAST(r.member_total AS VARCHAR),
      CAST(r.missing_rate_count AS VARCHAR), r.summary, r.unallocated_revenue,
      r.unreconciled_receipts, r.missing_fx, r.fx_rates
    FROM profitability_period_reports r
    WHERE ${period} AND ${user}
      AND r.version = (SELECT version FROM profitability_period_versions WHERE ${period})`;
  const [report] = (
    await connection.runAndReadAll(reportSql, sql.valuesIn(reportSql))
  ).getRows() as string[][];
  if (report === undefined) return undefined;
  const [version, baseCurrency, memberTotal, missingRateCount, summary, ...lists] = report as [
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
  // The page's members, each its own value: one text of them all took DuckDB longer to join
  // (string_agg) than the client takes to decode 25 values.
  const membersSql = `
    SELECT json FROM profitability_period_members
    WHERE ${period} AND ${user} AND version = ${sql.bind(version, 'BIGINT')}
      AND position > ${sql.bind((params.page - 1) * params.perPage, 'BIGINT')}
      AND position <= ${sql.bind(params.page * params.perPage, 'BIGINT')}
    ORDER BY position`;
  const members = (await connection.runAndReadAll(membersSql, sql.valuesIn(membersSql)))
    .getRows()
    .map(([json]) => json as string);
  // Each list is one text already: an empty one is no item.
  const [unallocated, unreconciled, missingFx, fxRates] = lists.map((joined) =>
    joined === '' ? [] : [joined],
  ) as [string[], string[], string[], string[]];
  return {
    baseCurrency,
    memberTotal: Number(memberTotal),
    missingRateCount: Number(missingRateCount),
    summary,
    members,
    unallocatedRevenue: unallocated,
    unreconciledReceipts: unreconciled,
    missingFx,
    fxRates,
  };
}
