import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { monthOf } from './profitability.range.ts';
import { formatAmount } from '../../money/money.ts';
import {
  primaryMetric,
  profitabilityMetric,
  type Profitability,
  type ProfitabilityMember,
  type ProfitabilityRow,
} from './profitability.schema.ts';

export interface ProfitabilityParams {
  workspaceId: string;
  /** Inclusive range of entry dates (YYYY-MM-DD), from <= to. */
  from: string;
  to: string;
  userId?: string;
  projectId?: string;
  clientId?: string;
  page: number;
  perPage: number;
}

// The rules live in the table macros of sql/duckdb/views/profitability_*.sql; this statement
// only binds the caller's values to them. Two things are constants of the text rather than
// parameters, so that DuckDB plans them away: with_days false (a range of whole months: the
// per-day computation is left out of the plan), and a NULL for each filter not asked for.
const reportSql = (params: ProfitabilityParams) => {
  const filter = (value: string | undefined, name: string) =>
    value === undefined ? 'NULL::UUID' : `$${name}::UUID`;
  return `
    SELECT *
    FROM profitability_report(
      $ws::UUID, $from::DATE, $to::DATE, ${filter(params.userId, 'userId')},
      ${filter(params.projectId, 'projectId')}, ${filter(params.clientId, 'clientId')},
      $page::BIGINT, $perPage::BIGINT, with_days := ${!wholeMonths(params.from, params.to)}
    )`;
};

/** Whether from..to covers whole calendar months only (YYYY-MM-DD dates). */
export function wholeMonths(from: string, to: string): boolean {
  return from === monthOf(from).from && to === monthOf(to).to;
}

// The row as DuckDB's JSON conversion hands it over: DECIMAL, BIGINT and DATE as text.
// Checked once, so a change in the SQL is an error here rather than a wrong figure.
const integerText = z.string().regex(/^\d+$/);
const sqlMetricsRow = z.object({
  user_id: z.string().nullable(),
  payee_id: z.string().nullable(),
  name: z.string().nullable(),
  project_id: z.string().nullable(),
  project_name: z.string().nullable(),
  billed_net: z.string(),
  collected_net: z.string(),
  compensation_cost: z.string(),
  approved_cost: z.string(),
  estimated_cost: z.string(),
  paid: z.string(),
  pending: z.string(),
  margin: z.string(),
  margin_percent: z.string().nullable(),
  client_unbilled_seconds: integerText,
  missing_fx: z.boolean(),
  missing_pay_rate: z.boolean(),
  missing_metrics: z.array(profitabilityMetric),
  native_amounts: z
    .array(z.object({ currency: z.string(), metric: profitabilityMetric, amount: z.string() }))
    .nullable(),
});
type SqlMetricsRow = z.infer<typeof sqlMetricsRow>;

const sqlNativeSums = z.array(z.object({ currency: z.string(), amount: z.string() })).nullable();

const sqlReportRow = z.object({
  base_currency: z.string(),
  member_total: integerText,
  missing_rate_count: integerText,
  summary: sqlMetricsRow,
  members: z
    .array(z.object({ member: sqlMetricsRow, projects: z.array(sqlMetricsRow).nullable() }))
    .nullable(),
  missing_fx: z
    .array(z.object({ metric: primaryMetric, from_currency: z.string(), amount: z.string() }))
    .nullable(),
  fx_rates: z
    .array(
      z.object({
        id: z.string(),
        from_currency: z.string(),
        to_currency: z.string(),
        effective_from: z.string(),
        created_at_ms: z.string().regex(/^-?\d+$/),
        used: z.boolean(),
        rate: z.string(),
      }),
    )
    .nullable(),
  unallocated_revenue: sqlNativeSums,
  unreconciled_receipts: sqlNativeSums,
});
type SqlReportRow = z.infer<typeof sqlReportRow>;

/**
 * The profitability report of one workspace (decisions 8), answered from the read model in one
 * statement, so every figure comes from the same sync. `connection` must not be inside a
 * transaction already.
 */
export async function loadProfitability(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
): Promise<Profitability> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const reader = await connection.runAndReadAll(reportSql(params), {
      ws: params.workspaceId,
      from: params.from,
      to: params.to,
      ...(params.userId === undefined ? {} : { userId: params.userId }),
      ...(params.projectId === undefined ? {} : { projectId: params.projectId }),
      ...(params.clientId === undefined ? {} : { clientId: params.clientId }),
      page: params.page,
      perPage: params.perPage,
    });
    const [row] = reader.getRowObjectsJson();
    if (!row) throw new Error('profitability_report returned no row');
    return reportRowToProfitability(sqlReportRow.parse(row), params);
  } finally {
    // Nothing was written: ROLLBACK ends the read transaction, also after a failed read.
    await connection.run('ROLLBACK');
  }
}

/** Turns the row of profitability_report into the API record: camelCase, money at its scale. */
function reportRowToProfitability(row: SqlReportRow, params: ProfitabilityParams): Profitability {
  const base = row.base_currency;
  const toRow = (metrics: SqlMetricsRow) => metricsRowToRecord(metrics, base, params);
  return {
    from: params.from,
    to: params.to,
    view: 'work',
    baseCurrency: base,
    page: params.page,
    perPage: params.perPage,
    memberTotal: safeInteger(row.member_total),
    missingRateCount: safeInteger(row.missing_rate_count),
    summary: toRow(row.summary),
    members: (row.members ?? []).map(({ member, projects }): ProfitabilityMember => ({
      ...toRow(member),
      projectCount: projects?.length ?? 0,
      projects: (projects ?? []).map(toRow),
    })),
    unallocatedRevenue: (row.unallocated_revenue ?? []).map(({ currency, amount }) => ({
      currency,
      amount: formatAmount(amount, currency),
    })),
    unreconciledReceipts: (row.unreconciled_receipts ?? []).map(({ currency, amount }) => ({
      currency,
      amount: formatAmount(amount, currency),
    })),
    missingFx: (row.missing_fx ?? []).map((m) => ({
      fromCurrency: m.from_currency,
      toCurrency: base,
      amount: formatAmount(m.amount, m.from_currency),
      metric: m.metric,
    })),
    fxRates: (row.fx_rates ?? []).map((r) => ({
      id: r.id,
      fromCurrency: r.from_currency,
      toCurrency: r.to_currency,
      effectiveFrom: r.effective_from,
      createdAt: new Date(Number(r.created_at_ms)).toISOString(),
      used: r.used,
      rate: r.rate,
    })),
  };
}

function metricsRowToRecord(
  row: SqlMetricsRow,
  base: string,
  params: ProfitabilityParams,
): ProfitabilityRow {
  const money = (amount: string) => formatAmount(amount, base);
  return {
    userId: row.user_id,
    payeeId: row.payee_id,
    name: row.name,
    projectId: row.project_id,
    projectName: row.project_name,
    billedNet: money(row.billed_net),
    collectedNet: money(row.collected_net),
    compensationCost: money(row.compensation_cost),
    approvedCost: money(row.approved_cost),
    estimatedCost: money(row.estimated_cost),
    paid: money(row.paid),
    pending: money(row.pending),
    margin: money(row.margin),
    marginPercent: row.margin_percent,
    clientUnbilledSeconds: safeInteger(row.client_unbilled_seconds),
    missingFx: row.missing_fx,
    missingPayRate: row.missing_pay_rate,
    missingMetrics: row.missing_metrics,
    nativeAmounts: (row.native_amounts ?? []).map((n) => ({
      currency: n.currency,
      metric: n.metric,
      amount: formatAmount(n.amount, n.currency),
    })),
    links: rowLinks(row, params),
  };
}

/**
 * App-relative links of a row (docs/decisions.md, "Profitability"): `app` opens the report
 * narrowed to the row (same range), `payee` the member's payee, `project` the project; `task`
 * is always '' since no row is a task.
 */
function rowLinks(row: SqlMetricsRow, params: ProfitabilityParams): ProfitabilityRow['links'] {
  const query = new URLSearchParams({ from: params.from, to: params.to });
  if (row.user_id) query.set('userId', row.user_id);
  if (row.project_id) query.set('projectId', row.project_id);
  return {
    app: `/app/team/profitability?${query.toString()}`,
    payee: row.payee_id ? `/app/team/payees/${row.payee_id}` : '',
    project: row.project_id ? `/app/projects/${row.project_id}` : '',
    task: '',
  };
}

function safeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`expected a safe integer, got ${text}`);
  return n;
}
