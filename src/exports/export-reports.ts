import type { AccessRule } from '../api/access.ts';
import { OWNER_ADMIN } from '../api/access.ts';
import type { SqlParams } from '../readmodel/sql-params.ts';
import { entityColumns, type ColumnKind, type ExportColumn } from './export-columns.ts';
import { invoiceEntity } from '../entities/invoice.entity.ts';
import { timeEntryEntity } from '../entities/time-entry.entity.ts';
import { billEntity } from '../entities/bill.entity.ts';
import { billLineEntity } from '../entities/bill-line.entity.ts';
import { paymentEntity } from '../entities/payment.entity.ts';
import { allocationEntity } from '../entities/allocation.entity.ts';
import { wholeMonthsOf } from '../reports/profitability/profitability.range.ts';
import type { Plan } from '../store/schema.ts';

/**
 * The exportable reports (docs/exports.md): one definition each, over the read model. Their
 * columns are those of export-columns.ts; a report of one entity takes them from the entity's
 * declaration (src/entities/).
 */
export interface ExportParams {
  workspaceId: string;
  /** The workspace's plan: a Studio workspace's exports leave out draft bills (decisions 2). */
  plan: Plan;
  /** Inclusive dates (YYYY-MM-DD) on the report's date; either may be absent. */
  from?: string | undefined;
  to?: string | undefined;
}

/** Which rows of which read-model table an incremental run takes (see export-journal.ts). */
export interface JournalSource {
  /** The journal's table name for the report's rows. */
  table: string;
  /** SQL of the row's journal key over the report's FROM (text). */
  key: string;
}

export interface ExportReport {
  name: string;
  /** What from/to filter, for the docs and the CLI's help. */
  dateMeaning: string;
  /** Role, scope and plan feature of the HTTP export: those of the data it contains. */
  access: AccessRule;
  columns: ExportColumn[];
  /**
   * The rows' FROM and WHERE, with the workspace, dates and plan bound into `params`. The
   * conditions are fixed SQL with placeholders; no value is pasted.
   */
  source(p: ExportParams, params: SqlParams): { from: string; where: string[] };
  /** Stable order, ending in a unique key, so the same data gives the same bytes. */
  orderBy: string;
  /** Row reports an incremental schedule can follow; absent for derived reports. */
  journal?: JournalSource;
  /**
   * The first key of `orderBy` (never NULL) with its SQL type: a large CSV or NDJSON export is
   * written in parts by ranges of it (export-writer.ts).
   */
  partitionKey?: { sql: string; type: string };
}

const FINALIZED: AccessRule = { roles: OWNER_ADMIN, scope: 'read' };
const AGENCY: AccessRule = {
  roles: OWNER_ADMIN,
  scope: 'read',
  feature: { plan: 'agency', name: 'team_payouts' },
};

const ws = (params: SqlParams, p: ExportParams, column = 'r.workspace_id') =>
  `${column} = ${params.bind(p.workspaceId, 'UUID')}`;

/** `column` between from and to, each end only when given. */
function dateRange(params: SqlParams, p: ExportParams, column: string): string[] {
  return [
    ...(p.from === undefined ? [] : [`${column} >= ${params.bind(p.from, 'DATE')}`]),
    ...(p.to === undefined ? [] : [`${column} <= ${params.bind(p.to, 'DATE')}`]),
  ];
}

/** Bills whose service period overlaps the range, as GET /team-payouts/bills (decisions 7). */
function servicePeriodOverlaps(params: SqlParams, p: ExportParams, bill = 'b'): string[] {
  return [
    ...(p.from === undefined
      ? []
      : [`(${bill}.service_to IS NULL OR ${bill}.service_to >= ${params.bind(p.from, 'DATE')})`]),
    ...(p.to === undefined
      ? []
      : [`(${bill}.service_from IS NULL OR ${bill}.service_from <= ${params.bind(p.to, 'DATE')})`]),
  ];
}

/** Drafts are an Agency feature: a Studio workspace's exports never contain them. */
const noDrafts = (p: ExportParams, bill = 'b') =>
  p.plan === 'agency' ? [] : [`${bill}.status <> 'DRAFT'`];

const col = (name: string, sql: string, kind: ColumnKind, currency?: string): ExportColumn =>
  currency === undefined ? { name, sql, kind } : { name, sql, kind, currency };

const invoices: ExportReport = {
  name: 'invoices',
  dateMeaning: 'issue date',
  access: FINALIZED,
  columns: entityColumns(invoiceEntity),
  source: (p, params) => ({
    from: 'invoices r',
    where: [ws(params, p), 'r.deleted_at IS NULL', ...dateRange(params, p, 'r.issue_date')],
  }),
  orderBy: 'r.issue_date NULLS LAST, r.number, r.id',
  journal: { table: 'invoices', key: 'CAST(r.id AS VARCHAR)' },
};

const timeEntries: ExportReport = {
  name: 'time-entries',
  dateMeaning: 'entry date',
  access: FINALIZED,
  columns: entityColumns(timeEntryEntity),
  source: (p, params) => ({
    from: 'time_entries r',
    where: [ws(params, p), 'r.deleted_at IS NULL', ...dateRange(params, p, 'r.entry_date')],
  }),
  orderBy: 'r.entry_date, r.id',
  journal: { table: 'time_entries', key: 'CAST(r.id AS VARCHAR)' },
  partitionKey: { sql: 'r.entry_date', type: 'DATE' },
};

const bills: ExportReport = {
  name: 'bills',
  dateMeaning: 'service period (bills whose period overlaps the range, as GET /team-payouts/bills)',
  access: FINALIZED,
  columns: entityColumns(billEntity),
  source: (p, params) => ({
    from: `team_bills r JOIN team_bill_figures f ON f.bill_id = r.id
      JOIN payees p ON p.id = r.payee_id`,
    where: [
      ws(params, p),
      'r.deleted_at IS NULL',
      ...noDrafts(p, 'r'),
      ...servicePeriodOverlaps(params, p, 'r'),
    ],
  }),
  orderBy: 'r.number, r.id',
  journal: { table: 'team_bills', key: 'CAST(r.id AS VARCHAR)' },
};

const billLines: ExportReport = {
  name: 'bill-lines',
  dateMeaning: "the bill's service period (the lines of the bills export for the same range)",
  access: FINALIZED,
  columns: entityColumns(billLineEntity),
  source: (p, params) => ({
    from: 'team_bill_lines l JOIN team_bills b ON b.id = l.bill_id',
    where: [
      ws(params, p, 'l.workspace_id'),
      'b.deleted_at IS NULL',
      ...noDrafts(p),
      ...servicePeriodOverlaps(params, p),
    ],
  }),
  orderBy: 'b.number, l.bill_id, l.position, l.id',
  journal: { table: 'team_bill_lines', key: 'CAST(l.id AS VARCHAR)' },
};

const payments: ExportReport = {
  name: 'payments',
  dateMeaning: 'paid date',
  access: FINALIZED,
  columns: entityColumns(paymentEntity),
  source: (p, params) => ({
    from: 'team_payments r JOIN payees p ON p.id = r.payee_id',
    where: [ws(params, p), 'r.deleted_at IS NULL', ...dateRange(params, p, 'r.paid_date')],
  }),
  orderBy: 'r.paid_date, r.id',
  journal: { table: 'team_payments', key: 'CAST(r.id AS VARCHAR)' },
  partitionKey: { sql: 'r.paid_date', type: 'DATE' },
};

const allocations: ExportReport = {
  name: 'allocations',
  dateMeaning: "the payment's paid date",
  access: FINALIZED,
  columns: entityColumns(allocationEntity),
  source: (p, params) => ({
    from: `team_payment_allocations a JOIN team_payments r ON r.id = a.payment_id
      JOIN team_bills b ON b.id = a.bill_id`,
    where: [
      ws(params, p, 'a.workspace_id'),
      'r.deleted_at IS NULL',
      ...dateRange(params, p, 'r.paid_date'),
    ],
  }),
  orderBy: 'r.paid_date, a.payment_id, a.position, a.bill_id',
  journal: {
    table: 'team_payment_allocations',
    key: "CAST(a.payment_id AS VARCHAR) || '/' || CAST(a.bill_id AS VARCHAR)",
  },
};

const unpaidTime: ExportReport = {
  name: 'unpaid-time',
  dateMeaning: 'work date (entry date); both sections (default and non_billable)',
  access: AGENCY,
  columns: [
    col('id', 'r.id', 'uuid'),
    col('timeEntryId', 'r.time_entry_id', 'uuid'),
    col('payeeId', 'r.payee_id', 'uuid'),
    col('userId', 'r.user_id', 'uuid'),
    col('projectId', 'r.project_id', 'uuid'),
    col('rateId', 'r.rate_id', 'uuid'),
    col('name', 'r.name', 'text'),
    col('projectName', 'r.project_name', 'text'),
    col('taskId', 'r.task_id', 'uuid'),
    col('taskName', 'r.task_name', 'text'),
    col('description', 'r.description', 'text'),
    col('currency', 'r.currency', 'text'),
    col('workDate', 'r.work_date', 'date'),
    col('durationSeconds', 'r.duration_seconds', 'integer'),
    col('hourlyRate', 'r.hourly_rate', 'rate', 'r.currency'),
    col('amount', 'r.amount', 'money', 'r.currency'),
    col('section', 'r.section', 'text'),
    col('selectedByDefault', 'r.selected_by_default', 'boolean'),
  ],
  source: (p, params) => ({
    from: 'unpaid_time_items r',
    where: [ws(params, p), ...dateRange(params, p, 'r.work_date')],
  }),
  orderBy: 'r.work_date, r.id',
  partitionKey: { sql: 'r.work_date', type: 'DATE' },
};

/** The metrics columns of a profitability row (decisions 8), in the base currency. */
const metricColumns: ExportColumn[] = [
  ...(
    [
      ['billedNet', 'billed_net'],
      ['collectedNet', 'collected_net'],
      ['compensationCost', 'compensation_cost'],
      ['approvedCost', 'approved_cost'],
      ['estimatedCost', 'estimated_cost'],
      ['paid', 'paid'],
      ['pending', 'pending'],
      ['margin', 'margin'],
    ] as const
  ).map(([name, field]) =>
    // The report hands money over as the text of its count of 10^-4 units.
    col(name, `money_of_e4(CAST(x.${field}_e4 AS HUGEINT))`, 'money', 'b.base_currency'),
  ),
  col('marginPercent', 'CAST(x.margin_percent AS DECIMAL(38, 2))', 'fixed'),
  col('clientUnbilledSeconds', 'x.client_unbilled_seconds', 'integer'),
  col('missingFx', 'x.missing_fx', 'boolean'),
  col('missingPayRate', 'x.missing_pay_rate', 'boolean'),
  col('missingMetrics', 'x.missing_metrics', 'names'),
];

/** The report's params for a whole-workspace run: every member on one page. */
function profitabilityParams(p: ExportParams) {
  if (p.from === undefined || p.to === undefined)
    throw new Error('profitability exports need both ends of the range');
  return { workspaceId: p.workspaceId, from: p.from, to: p.to, page: 1, perPage: 1_000_000_000 };
}

/**
 * The `part` rows of profitability_report of the whole workspace for the range, every member
 * on one page, as the API computes it (its whole months bound), with the workspace's base
 * currency.
 */
function profitabilitySource(p: ExportParams, params: SqlParams, part: 'member' | 'project') {
  const { workspaceId, from, to, perPage } = profitabilityParams(p);
  const whole = wholeMonthsOf(from, to);
  const workspace = params.bind(workspaceId, 'UUID');
  const date = (value: string | undefined) =>
    value === undefined ? 'NULL::DATE' : params.bind(value, 'DATE');
  return {
    from: `profitability_report(${workspace}, ${date(from)}, ${date(to)}, ${date(whole?.from)},
      ${date(whole?.to)}, NULL::UUID, NULL::UUID, NULL::UUID, 1::BIGINT, ${params.bind(perPage, 'BIGINT')}) x,
      (SELECT base_currency FROM workspaces WHERE id = ${workspace}) b`,
    where: [`x.part = ${params.bind(part)}`],
  };
}

const identity = [
  col('userId', 'x.user_id', 'uuid'),
  col('payeeId', 'x.payee_id', 'uuid'),
  col('name', 'x.name', 'text'),
];

const profitabilityMembers: ExportReport = {
  name: 'profitability-members',
  dateMeaning: 'entry date, as GET /team-payouts/profitability (default: the current month)',
  access: AGENCY,
  columns: [...identity, col('baseCurrency', 'b.base_currency', 'text'), ...metricColumns],
  source: (p, params) => profitabilitySource(p, params, 'member'),
  orderBy: 'x.position',
};

const profitabilityProjects: ExportReport = {
  name: 'profitability-projects',
  dateMeaning: 'entry date, as GET /team-payouts/profitability (default: the current month)',
  access: AGENCY,
  columns: [
    ...identity,
    col('projectId', 'x.project_id', 'uuid'),
    col('projectName', 'x.project_name', 'text'),
    col('baseCurrency', 'b.base_currency', 'text'),
    ...metricColumns,
  ],
  source: (p, params) => profitabilitySource(p, params, 'project'),
  orderBy: 'x.member_position, x.project_name IS NULL, x.project_name, x.project_id',
};

export const EXPORT_REPORTS: readonly ExportReport[] = [
  invoices,
  timeEntries,
  bills,
  billLines,
  payments,
  allocations,
  unpaidTime,
  profitabilityMembers,
  profitabilityProjects,
];

export const EXPORT_REPORT_NAMES = EXPORT_REPORTS.map((r) => r.name);

export function findExportReport(name: string): ExportReport | undefined {
  return EXPORT_REPORTS.find((r) => r.name === name);
}

/** Reports whose default range is the current month (the API's own default). */
export const needsRange = (report: ExportReport) => report.name.startsWith('profitability-');
