import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { SqlParams } from '../../http/list/sql-params.ts';
import { wholeMonths, wholeMonthsOf } from './profitability.range.ts';
import { decimalOfE4, formatAmount } from '../../money/money.ts';
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

// The rules live in the table macros of sql/duckdb/views/profitability_*.sql; these statements
// only pass the caller's values to them, as literals of their types (SqlParams writes ids,
// dates and numbers so once their form is checked; as parameters, DuckDB would bind this large
// statement twice, 15-20 ms). A filter not asked for is a NULL constant, so that DuckDB plans
// it away. The range's whole months are computed here once, for the report and the day cells
// alike, so the two never disagree (NULL when there is none).
interface ReportArgs {
  ws: string;
  from: string;
  to: string;
  wholeFrom: string;
  wholeTo: string;
  /** user, project and client filters */
  filters: string;
  sql: SqlParams;
}

function reportArgs(params: ProfitabilityParams): ReportArgs {
  const sql = new SqlParams();
  const whole = wholeMonthsOf(params.from, params.to);
  const uuid = (value: string | undefined) =>
    value === undefined ? 'NULL::UUID' : sql.bind(value, 'UUID');
  const date = (value: string | undefined) =>
    value === undefined ? 'NULL::DATE' : sql.bind(value, 'DATE');
  return {
    ws: uuid(params.workspaceId),
    from: date(params.from),
    to: date(params.to),
    wholeFrom: date(whole?.from),
    wholeTo: date(whole?.to),
    filters: `${uuid(params.userId)}, ${uuid(params.projectId)}, ${uuid(params.clientId)}`,
    sql,
  };
}

// The columns each part of the report fills (the others are NULL in its rows).
const METRICS_COLUMNS = [
  'position',
  'user_id',
  'payee_id',
  'name',
  'project_id',
  'project_name',
  'billed_net_e4',
  'collected_net_e4',
  'compensation_cost_e4',
  'approved_cost_e4',
  'estimated_cost_e4',
  'paid_e4',
  'pending_e4',
  'margin_e4',
  'margin_percent',
  'client_unbilled_seconds',
  'missing_fx',
  'missing_pay_rate',
  'missing_metrics',
];
const PART_COLUMNS: [parts: string[], columns: string[]][] = [
  [['summary', 'member', 'project'], METRICS_COLUMNS],
  [['native'], ['level', 'position', 'user_id', 'project_id', 'currency', 'metric', 'amount_e4']],
  [['counts'], ['position', 'base_currency', 'member_total', 'missing_rate_count']],
  [['missing_fx'], ['position', 'currency', 'metric', 'amount_e4']],
  [
    ['fx_rate'],
    [
      'position',
      'fx_rate_id',
      'currency',
      'to_currency',
      'effective_from',
      'created_at_ms',
      'used',
      'rate',
    ],
  ],
  [
    ['unallocated_revenue', 'unreconciled_receipts'],
    ['position', 'currency', 'amount'],
  ],
];

// Each row leaves as its part and the JSON text of that part's columns, which DuckDB writes
// and JSON.parse reads faster than the client converts a few thousand rows value by value
// (139 ms against 237 for a month of the 10M-entry workspace). Only the part's own columns:
// the whole union row, mostly NULLs, was 2.8 times the text (a month: 4.8 MB against 1.7 MB),
// and took 25-50 ms more in DuckDB and 15 ms more to parse. Money is text in it already.
const reportSql = (args: ReportArgs, page: number, perPage: number) => {
  const json = (columns: string[]) =>
    `to_json({${columns.map((c) => `'${c}': r.${c}`).join(', ')}})`;
  const branches = PART_COLUMNS.map(
    ([parts, columns]) =>
      `WHEN r.part IN (${parts.map((p) => `'${p}'`).join(', ')}) THEN ${json(columns)}`,
  );
  return `SELECT r.part, CAST(CASE ${branches.join(' ')} END AS VARCHAR) AS row
    FROM profitability_report(
      ${args.ws}, ${args.from}, ${args.to}, ${args.wholeFrom}, ${args.wholeTo}, ${args.filters},
      ${args.sql.bind(page, 'BIGINT')}, ${args.sql.bind(perPage, 'BIGINT')}
    ) r`;
};

// The days of partly covered months, computed from the entries into the report's scratch table.
const dayCellsSql = (args: ReportArgs) => `
  INSERT INTO profitability_report_day_cells BY NAME
  SELECT ${args.ws} AS workspace_id, *
  FROM profitability_cells(
    ${args.ws}, ${args.from}, ${args.to}, ${args.filters},
    skip_from := ${args.wholeFrom},
    skip_to := ${args.wholeTo}
  )`;

// The rows as the report's JSON text has them: money as the text of its count of 10^-4 units
// (`_e4`) or as decimal text (`amount` of the revenue lists), DATE as text, counts as
// numbers (well below 2^53; a larger one would fail here rather than lose digits). Checked
// per part, so a change in the SQL is an error here rather than a wrong figure.
const safeInteger = z.number().refine(Number.isSafeInteger, 'a safe integer');
const e4Text = z.string().regex(/^-?\d+$/);
const position = safeInteger;
const sqlMetricsRow = z.object({
  position: position.nullable(),
  user_id: z.string().nullable(),
  payee_id: z.string().nullable(),
  name: z.string().nullable(),
  project_id: z.string().nullable(),
  project_name: z.string().nullable(),
  billed_net_e4: e4Text,
  collected_net_e4: e4Text,
  compensation_cost_e4: e4Text,
  approved_cost_e4: e4Text,
  estimated_cost_e4: e4Text,
  paid_e4: e4Text,
  pending_e4: e4Text,
  margin_e4: e4Text,
  margin_percent: z.string().nullable(),
  client_unbilled_seconds: safeInteger,
  missing_fx: z.boolean(),
  missing_pay_rate: z.boolean(),
  missing_metrics: z.array(profitabilityMetric),
});
type SqlMetricsRow = z.infer<typeof sqlMetricsRow>;
const sqlNativeAmount = z.object({
  level: safeInteger,
  position,
  user_id: z.string().nullable(),
  project_id: z.string().nullable(),
  currency: z.string(),
  metric: profitabilityMetric,
  amount_e4: e4Text,
});
const sqlCounts = z.object({
  base_currency: z.string(),
  member_total: safeInteger,
  missing_rate_count: safeInteger,
});
const sqlMissingFx = z.object({
  position,
  currency: z.string(),
  metric: primaryMetric,
  amount_e4: e4Text,
});
const sqlFxRate = z.object({
  position,
  fx_rate_id: z.string(),
  currency: z.string(),
  to_currency: z.string(),
  effective_from: z.string(),
  created_at_ms: safeInteger,
  used: z.boolean(),
  rate: z.string(),
});
const sqlNativeSum = z.object({ position, currency: z.string(), amount: z.string() });

/**
 * Computes the days of the range's partly covered months into profitability_report_day_cells,
 * for the report to read. Call inside the read transaction that then reads the report and
 * rolls back: the rows are this transaction's only. Nothing to do for whole months.
 */
export async function fillDayCells(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
  args: ReportArgs = reportArgs(params),
): Promise<void> {
  if (wholeMonths(params.from, params.to)) return;
  const text = dayCellsSql(args);
  await connection.run(text, args.sql.valuesIn(text));
}

/**
 * The profitability report of one workspace (decisions 8), answered from the read model in one
 * read transaction, so every figure comes from the same sync. `connection` must not be inside
 * a transaction already.
 */
export async function loadProfitability(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
): Promise<Profitability> {
  const args = reportArgs(params);
  await connection.run('BEGIN TRANSACTION');
  try {
    await fillDayCells(connection, params, args);
    const text = reportSql(args, params.page, params.perPage);
    const reader = await connection.runAndReadAll(text, args.sql.valuesIn(text));
    const rows = reader.getRows().map(([part, json]) => ({
      part: String(part),
      row: JSON.parse(String(json)) as Record<string, unknown>,
    }));
    return reportRowsToProfitability(rows, params);
  } finally {
    // Nothing is kept: ROLLBACK ends the read transaction and drops the scratch day cells,
    // also after a failed read.
    await connection.run('ROLLBACK');
  }
}

/**
 * Nests the flat rows of profitability_report into the API record (camelCase, money at its
 * scale): every figure and every order comes from the SQL, each list is put in its rows'
 * `position` order.
 */
function reportRowsToProfitability(
  rows: { part: string; row: Record<string, unknown> }[],
  params: ProfitabilityParams,
): Profitability {
  const parts = new Map<string, Record<string, unknown>[]>();
  for (const { part, row } of rows) {
    const list = parts.get(part);
    if (list) list.push(row);
    else parts.set(part, [row]);
  }
  const listOf = <T extends { position: number | null }>(part: string, schema: z.ZodType<T>) =>
    (parts.get(part) ?? [])
      .map((row) => schema.parse(row))
      .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  const [counts] = listOf('counts', sqlCounts.extend({ position: position.nullable() }));
  const [summary] = listOf('summary', sqlMetricsRow);
  if (!counts || !summary) throw new Error('profitability_report returned no counts or summary');
  const base = counts.base_currency;

  // Native amounts by the row they belong to: level, user and project.
  const nativeKey = (level: number, userId: string | null, projectId: string | null) =>
    `${level}/${userId ?? ''}/${projectId ?? ''}`;
  const natives = new Map<string, Profitability['summary']['nativeAmounts']>();
  for (const n of listOf('native', sqlNativeAmount)) {
    const key = nativeKey(n.level, n.user_id, n.project_id);
    const amount = {
      currency: n.currency,
      metric: n.metric,
      amount: formatAmount(decimalOfE4(n.amount_e4), n.currency),
    };
    const list = natives.get(key);
    if (list) list.push(amount);
    else natives.set(key, [amount]);
  }
  const toRow = (metrics: SqlMetricsRow, level: number) =>
    metricsRowToRecord(
      metrics,
      base,
      params,
      natives.get(nativeKey(level, metrics.user_id, metrics.project_id)) ?? [],
    );
  const projects = listOf('project', sqlMetricsRow);
  const sums = (part: string) =>
    listOf(part, sqlNativeSum).map(({ currency, amount }) => ({
      currency,
      amount: formatAmount(amount, currency),
    }));
  return {
    from: params.from,
    to: params.to,
    view: 'work',
    baseCurrency: base,
    page: params.page,
    perPage: params.perPage,
    memberTotal: counts.member_total,
    missingRateCount: counts.missing_rate_count,
    summary: toRow(summary, 3),
    members: listOf('member', sqlMetricsRow).map((member): ProfitabilityMember => {
      const own = projects.filter((p) => p.user_id === member.user_id);
      return {
        ...toRow(member, 1),
        projectCount: own.length,
        projects: own.map((p) => toRow(p, 0)),
      };
    }),
    unallocatedRevenue: sums('unallocated_revenue'),
    unreconciledReceipts: sums('unreconciled_receipts'),
    missingFx: listOf('missing_fx', sqlMissingFx).map((m) => ({
      fromCurrency: m.currency,
      toCurrency: base,
      amount: formatAmount(decimalOfE4(m.amount_e4), m.currency),
      metric: m.metric,
    })),
    fxRates: listOf('fx_rate', sqlFxRate).map((r) => ({
      id: r.fx_rate_id,
      fromCurrency: r.currency,
      toCurrency: r.to_currency,
      effectiveFrom: r.effective_from,
      createdAt: new Date(r.created_at_ms).toISOString(),
      used: r.used,
      rate: r.rate,
    })),
  };
}

function metricsRowToRecord(
  row: SqlMetricsRow,
  base: string,
  params: ProfitabilityParams,
  nativeAmounts: ProfitabilityRow['nativeAmounts'],
): ProfitabilityRow {
  const money = (e4: string) => formatAmount(decimalOfE4(e4), base);
  return {
    userId: row.user_id,
    payeeId: row.payee_id,
    name: row.name,
    projectId: row.project_id,
    projectName: row.project_name,
    billedNet: money(row.billed_net_e4),
    collectedNet: money(row.collected_net_e4),
    compensationCost: money(row.compensation_cost_e4),
    approvedCost: money(row.approved_cost_e4),
    estimatedCost: money(row.estimated_cost_e4),
    paid: money(row.paid_e4),
    pending: money(row.pending_e4),
    margin: money(row.margin_e4),
    marginPercent: row.margin_percent,
    clientUnbilledSeconds: row.client_unbilled_seconds,
    missingFx: row.missing_fx,
    missingPayRate: row.missing_pay_rate,
    missingMetrics: row.missing_metrics,
    nativeAmounts,
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
