import type { AccessRule } from '../api/access.ts';
import { OWNER_ADMIN } from '../api/access.ts';
import { sql, type SelectQueryBuilder } from 'kysely';
import { exportQueries } from './export-db.ts';
import { entityColumns, type ColumnKind, type ExportColumn } from './export-columns.ts';
import { invoiceEntity } from '../entities/invoice.entity.ts';
import { timeEntryEntity } from '../entities/time-entry.entity.ts';
import { billEntity } from '../entities/bill.entity.ts';
import { billLineEntity } from '../entities/bill-line.entity.ts';
import { paymentEntity } from '../entities/payment.entity.ts';
import { allocationEntity } from '../entities/allocation.entity.ts';
import { LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import {
  readReport,
  type ProfitabilityParams,
} from '../reports/profitability/profitability.query.ts';
import type { ProfitabilityRow as ReportRow } from '../reports/profitability/profitability.schema.ts';
import type { Plan } from '../store/schema.ts';

/**
 * The exportable reports (docs/exports.md): one definition each, over the read model. Their
 * columns are those of export-columns.ts; a report of one entity takes them from the entity's
 * declaration (src/entities/).
 */
export interface ExportParams {
  workspaceId: string;
  /**
   * The workspace's plan: a Studio workspace's exports leave out draft bills
   * (docs/contract.md, "Plans and roles").
   */
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

/**
 * A report's rows before their columns. Each source is typed over the tables it reads; the
 * writer only adds its columns' SQL, the order and row filters, whatever those tables are.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ReportRows = SelectQueryBuilder<any, any, object>;

export interface ExportReport {
  name: string;
  /** What from/to filter, for the docs and the CLI's help. */
  dateMeaning: string;
  /** Role, scope and plan feature of the HTTP export: those of the data it contains. */
  access: AccessRule;
  columns: ExportColumn[];
  /**
   * The rows' FROM and WHERE, typed over the read model's columns (export-db.ts), with the
   * workspace, dates and plan bound as parameters; no value is pasted into the SQL.
   */
  source(p: ExportParams): ReportRows;
  /**
   * Writes what `source` reads when that is not a table of the read model (the profitability
   * reports: the API's own record of the report), inside the export's read transaction on the
   * connection that then writes the file.
   */
  prepare?(connection: DuckDBConnection, p: ExportParams): Promise<void>;
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

const db = exportQueries;

/** Drafts are an Agency feature: a Studio workspace's exports never contain them. */
const draftsShown = (p: ExportParams) => p.plan === 'agency';

const col = (name: string, sql: string, kind: ColumnKind, currency?: string): ExportColumn =>
  currency === undefined ? { name, sql, kind } : { name, sql, kind, currency };

const invoices: ExportReport = {
  name: 'invoices',
  dateMeaning: 'issue date',
  access: FINALIZED,
  columns: entityColumns(invoiceEntity),
  source: (p) =>
    db
      .selectFrom('invoices as r')
      .where('r.workspace_id', '=', p.workspaceId)
      .where('r.deleted_at', 'is', null)
      .$if(p.from !== undefined, (q) => q.where('r.issue_date', '>=', p.from!))
      .$if(p.to !== undefined, (q) => q.where('r.issue_date', '<=', p.to!)),
  orderBy: 'r.issue_date NULLS LAST, r.number, r.id',
  journal: { table: 'invoices', key: 'CAST(r.id AS VARCHAR)' },
};

const timeEntries: ExportReport = {
  name: 'time-entries',
  dateMeaning: 'entry date',
  access: FINALIZED,
  columns: entityColumns(timeEntryEntity),
  source: (p) =>
    db
      .selectFrom('time_entries as r')
      .where('r.workspace_id', '=', p.workspaceId)
      .where('r.deleted_at', 'is', null)
      .$if(p.from !== undefined, (q) => q.where('r.entry_date', '>=', p.from!))
      .$if(p.to !== undefined, (q) => q.where('r.entry_date', '<=', p.to!)),
  orderBy: 'r.entry_date, r.id',
  journal: { table: 'time_entries', key: 'CAST(r.id AS VARCHAR)' },
  partitionKey: { sql: 'r.entry_date', type: 'DATE' },
};

const bills: ExportReport = {
  name: 'bills',
  dateMeaning: 'service period (bills whose period overlaps the range, as GET /team-payouts/bills)',
  access: FINALIZED,
  columns: entityColumns(billEntity),
  source: (p) =>
    db
      .selectFrom('team_bills as r')
      .innerJoin('team_bill_figures as f', 'f.bill_id', 'r.id')
      .innerJoin('payees as p', 'p.id', 'r.payee_id')
      .where('r.workspace_id', '=', p.workspaceId)
      .where('r.deleted_at', 'is', null)
      .$if(!draftsShown(p), (q) => q.where('r.status', '<>', 'DRAFT'))
      // Bills whose service period overlaps the range, as GET /team-payouts/bills
      // (docs/contract.md, "Team payout queries").
      .$if(p.from !== undefined, (q) =>
        q.where((e) => e.or([e('r.service_to', 'is', null), e('r.service_to', '>=', p.from!)])),
      )
      .$if(p.to !== undefined, (q) =>
        q.where((e) => e.or([e('r.service_from', 'is', null), e('r.service_from', '<=', p.to!)])),
      ),
  orderBy: 'r.number, r.id',
  journal: { table: 'team_bills', key: 'CAST(r.id AS VARCHAR)' },
};

const billLines: ExportReport = {
  name: 'bill-lines',
  dateMeaning: "the bill's service period (the lines of the bills export for the same range)",
  access: FINALIZED,
  columns: entityColumns(billLineEntity),
  source: (p) =>
    db
      .selectFrom('team_bill_lines as l')
      .innerJoin('team_bills as b', 'b.id', 'l.bill_id')
      .where('l.workspace_id', '=', p.workspaceId)
      .where('b.deleted_at', 'is', null)
      .$if(!draftsShown(p), (q) => q.where('b.status', '<>', 'DRAFT'))
      .$if(p.from !== undefined, (q) =>
        q.where((e) => e.or([e('b.service_to', 'is', null), e('b.service_to', '>=', p.from!)])),
      )
      .$if(p.to !== undefined, (q) =>
        q.where((e) => e.or([e('b.service_from', 'is', null), e('b.service_from', '<=', p.to!)])),
      ),
  orderBy: 'b.number, l.bill_id, l.position, l.id',
  journal: { table: 'team_bill_lines', key: 'CAST(l.id AS VARCHAR)' },
};

const payments: ExportReport = {
  name: 'payments',
  dateMeaning: 'paid date',
  access: FINALIZED,
  columns: entityColumns(paymentEntity),
  source: (p) =>
    db
      .selectFrom('team_payments as r')
      .innerJoin('payees as p', 'p.id', 'r.payee_id')
      .where('r.workspace_id', '=', p.workspaceId)
      .where('r.deleted_at', 'is', null)
      .$if(p.from !== undefined, (q) => q.where('r.paid_date', '>=', p.from!))
      .$if(p.to !== undefined, (q) => q.where('r.paid_date', '<=', p.to!)),
  orderBy: 'r.paid_date, r.id',
  journal: { table: 'team_payments', key: 'CAST(r.id AS VARCHAR)' },
  partitionKey: { sql: 'r.paid_date', type: 'DATE' },
};

const allocations: ExportReport = {
  name: 'allocations',
  dateMeaning: "the payment's paid date",
  access: FINALIZED,
  columns: entityColumns(allocationEntity),
  source: (p) =>
    db
      .selectFrom('team_payment_allocations as a')
      .innerJoin('team_payments as r', 'r.id', 'a.payment_id')
      .innerJoin('team_bills as b', 'b.id', 'a.bill_id')
      .where('a.workspace_id', '=', p.workspaceId)
      .where('r.deleted_at', 'is', null)
      .$if(p.from !== undefined, (q) => q.where('r.paid_date', '>=', p.from!))
      .$if(p.to !== undefined, (q) => q.where('r.paid_date', '<=', p.to!)),
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
  source: (p) =>
    db
      .selectFrom('unpaid_time_items as r')
      .where('r.workspace_id', '=', p.workspaceId)
      .$if(p.from !== undefined, (q) => q.where('r.work_date', '>=', p.from!))
      .$if(p.to !== undefined, (q) => q.where('r.work_date', '<=', p.to!)),
  orderBy: 'r.work_date, r.id',
  partitionKey: { sql: 'r.work_date', type: 'DATE' },
};

/** The money metrics of a profitability row: the API's field, and its column in the exports. */
const MONEY_METRICS = [
  ['billedNet', 'billed_net'],
  ['collectedNet', 'collected_net'],
  ['compensationCost', 'compensation_cost'],
  ['approvedCost', 'approved_cost'],
  ['estimatedCost', 'estimated_cost'],
  ['paid', 'paid'],
  ['pending', 'pending'],
  ['margin', 'margin'],
] as const satisfies readonly (readonly [keyof ReportRow, string])[];

/** The metrics columns of a profitability row, in the base currency. */
const metricColumns: ExportColumn[] = [
  ...MONEY_METRICS.map(([name, field]) =>
    // The API's figure, the decimal text of the amount at the base currency's scale.
    col(name, `CAST(x.${field} AS DECIMAL(38, 4))`, 'money', 'b.base_currency'),
  ),
  col('marginPercent', 'CAST(x.margin_percent AS DECIMAL(38, 2))', 'fixed'),
  col('clientUnbilledSeconds', 'x.client_unbilled_seconds', 'integer'),
  col('missingFx', 'x.missing_fx', 'boolean'),
  col('missingPayRate', 'x.missing_pay_rate', 'boolean'),
  col('missingMetrics', 'x.missing_metrics', 'names'),
];

/** The report's params for a whole-workspace run: every member on one page. */
function profitabilityParams(p: ExportParams): ProfitabilityParams {
  if (p.from === undefined || p.to === undefined)
    throw new Error('profitability exports need both ends of the range');
  return { workspaceId: p.workspaceId, from: p.from, to: p.to, page: 1, perPage: 1_000_000_000 };
}

/**
 * The rows of the profitability exports: the API's record of the report of the whole workspace
 * (readReport, the one definition of its figures), every member on one page, one row per member
 * (`position` its place) and per member's project (`member_position` its member's, `position`
 * its place among them). A temporary table of the export's connection, made inside its read
 * transaction and gone with it.
 */
const PROFITABILITY_ROWS = 'profitability_export_rows';

async function writeProfitabilityRows(connection: DuckDBConnection, p: ExportParams) {
  const report = await readReport(connection, profitabilityParams(p));
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${PROFITABILITY_ROWS} (
    part VARCHAR NOT NULL, position BIGINT NOT NULL, member_position BIGINT NOT NULL,
    user_id UUID, payee_id UUID, name VARCHAR, project_id UUID, project_name VARCHAR,
    ${MONEY_METRICS.map(([, field]) => `${field} VARCHAR`).join(', ')}, margin_percent VARCHAR, client_unbilled_seconds BIGINT, missing_fx BOOLEAN,
    missing_pay_rate BOOLEAN, missing_metrics VARCHAR[])`);
  const appender = await connection.createAppender(PROFITABILITY_ROWS, 'main', 'temp');
  const text = (value: string | null) =>
    value === null ? appender.appendNull() : appender.appendVarchar(value);
  const append = (part: string, position: number, memberPosition: number, row: ReportRow) => {
    appender.appendVarchar(part);
    appender.appendBigInt(BigInt(position));
    appender.appendBigInt(BigInt(memberPosition));
    for (const id of [row.userId, row.payeeId]) text(id);
    text(row.name);
    text(row.projectId);
    text(row.projectName);
    for (const [name] of MONEY_METRICS) appender.appendVarchar(row[name]);
    text(row.marginPercent);
    appender.appendBigInt(BigInt(row.clientUnbilledSeconds));
    appender.appendBoolean(row.missingFx);
    appender.appendBoolean(row.missingPayRate);
    appender.appendList(listValue(row.missingMetrics), LIST(VARCHAR));
    appender.endRow();
  };
  try {
    report.members.forEach((member, m) => {
      append('member', m + 1, m + 1, member);
      member.projects?.forEach((project, i) => append('project', i + 1, m + 1, project));
    });
  } finally {
    appender.closeSync();
  }
}

/** The columns of the profitability rows that the exports' order and filter name. */
interface ProfitabilityExportRow {
  part: 'member' | 'project';
  position: number;
  member_position: number;
}

/** The `part` rows of the profitability report (PROFITABILITY_ROWS), with the base currency. */
function profitabilitySource(p: ExportParams, part: ProfitabilityExportRow['part']): ReportRows {
  const rows = sql<ProfitabilityExportRow>`temp.main.${sql.raw(PROFITABILITY_ROWS)}`;
  const base = db.selectFrom('workspaces').select('base_currency').where('id', '=', p.workspaceId);
  return db
    .selectFrom(rows.as('x'))
    .innerJoin(base.as('b'), (join) => join.onTrue())
    .where('x.part', '=', part);
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
  prepare: writeProfitabilityRows,
  source: (p) => profitabilitySource(p, 'member'),
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
  prepare: writeProfitabilityRows,
  source: (p) => profitabilitySource(p, 'project'),
  orderBy: 'x.member_position, x.position',
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
