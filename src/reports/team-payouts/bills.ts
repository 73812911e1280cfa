import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { storableDate } from '../../stored-values.ts';
import { bool, decimal, integer, money, rate, text, timestamp } from '../../api/record-values.ts';
import { currencyCode, isoDate, isoTimestamp, moneyText, uuid } from '../../api/schema-parts.ts';
import { sortKeys } from '../../api/list-filters.ts';
import type { Caller } from '../../api/caller.ts';
import type { ListEndpoint } from '../../api/list/list-endpoint.ts';
import { booleanText, currencyText, listQuery, once } from '../../api/list/list-query.ts';
import { SqlParams } from '../../readmodel/sql-params.ts';
import { todayIn } from '../../time/calendar.ts';
import { links, linksRecord } from './links.ts';
import { PAYMENT_COLUMNS, PAYMENT_FROM, paymentRecord, paymentRecords } from './payments.ts';
import { BILL_LINE_KINDS, BILL_PAYMENT_STATUSES, BILL_STATUSES } from '../../value-sets.ts';
import { readAll } from '../../readmodel/read-all.ts';
import { documentAs } from '../../api/schema-doc.ts';

/** A snapshot as the store keeps it: the payee's, agency's or source's fields at the time, as a JSON object. */
const snapshotObject = documentAs(z.record(z.string(), z.unknown()), {
  type: 'object',
  description: 'The fields as they were when the snapshot was taken.',
});

const billLine = z.object({
  id: uuid,
  kind: z.enum(BILL_LINE_KINDS),
  description: z.string().nullable(),
  timeEntryId: uuid.nullable(),
  projectId: uuid.nullable(),
  taskId: uuid.nullable(),
  workDate: isoDate.nullable(),
  durationSeconds: z.int().nullable(),
  hourlyRate: moneyText.nullable(),
  amount: moneyText,
  quantity: z.string().nullable(),
  unitPrice: moneyText.nullable(),
  sourceSnapshot: snapshotObject.nullable(),
});

/** A team bill as the API answers it (api-v1 "Team bill", decisions 7 "Bill amounts"). */
export const billRecord = z.object({
  id: uuid,
  payeeId: uuid,
  userId: uuid,
  number: z.string(),
  status: z.enum(BILL_STATUSES),
  paymentStatus: z.enum(BILL_PAYMENT_STATUSES),
  revision: z.int(),
  currency: currencyCode,
  total: moneyText,
  amountPaid: moneyText,
  remaining: moneyText,
  subtotal: moneyText,
  adjustmentTotal: moneyText,
  serviceFrom: isoDate.nullable(),
  serviceTo: isoDate.nullable(),
  issueDate: isoDate.nullable(),
  dueDate: isoDate.nullable(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  approvedAt: isoTimestamp.nullable(),
  deletedAt: isoTimestamp.nullable(),
  note: z.string().nullable(),
  voidReason: z.string().nullable(),
  payeeSnapshot: snapshotObject.nullable(),
  agencySnapshot: snapshotObject.nullable(),
  lineGroupBy: z.string().nullable(),
  showProjectName: z.boolean(),
  showTaskName: z.boolean(),
  lines: z.array(billLine),
  payments: z.array(paymentRecord),
  links: linksRecord,
});
export type BillRecord = z.infer<typeof billRecord>;

export const BILL_SORT_FIELDS = [
  'id',
  'number',
  'status',
  'issueDate',
  'dueDate',
  'total',
  'amountPaid',
  'createdAt',
  'updatedAt',
] as const;

const date = storableDate('must be a date (YYYY-MM-DD)');

/** GET /team-payouts/bills query (api-v1); strict. */
export const billListQuery = listQuery(BILL_SORT_FIELDS, {
  payeeId: once(z.uuid()).optional(),
  currency: once(currencyText).optional(),
  clientId: once(z.uuid()).optional(),
  projectId: once(z.uuid()).optional(),
  from: once(date).optional(),
  to: once(date).optional(),
  status: once(z.enum(BILL_STATUSES)).optional(),
  paymentStatus: once(z.enum(BILL_PAYMENT_STATUSES)).optional(),
  outstandingOnly: booleanText.optional(),
  overdueOnly: booleanText.optional(),
});
export type BillListQuery = z.output<typeof billListQuery>;

const BILL_COLUMNS = `r.id, r.payee_id, p.user_id, r.number, r.status, f.payment_status, r.revision,
  r.currency, CAST(f.total AS VARCHAR) AS total, CAST(f.amount_paid AS VARCHAR) AS amount_paid,
  CAST(f.remaining AS VARCHAR) AS remaining, CAST(f.subtotal AS VARCHAR) AS subtotal,
  CAST(f.adjustment_total AS VARCHAR) AS adjustment_total,
  CAST(r.service_from AS VARCHAR) AS service_from, CAST(r.service_to AS VARCHAR) AS service_to,
  CAST(r.issue_date AS VARCHAR) AS issue_date, CAST(r.due_date AS VARCHAR) AS due_date,
  r.created_at, r.updated_at, r.approved_at, r.deleted_at, r.note, r.void_reason,
  CAST(r.payee_snapshot AS VARCHAR) AS payee_snapshot,
  CAST(r.agency_snapshot AS VARCHAR) AS agency_snapshot, r.line_group_by, r.show_project_name,
  r.show_task_name`;

const BILL_FROM = `team_bills r JOIN team_bill_figures f ON f.bill_id = r.id
  JOIN payees p ON p.id = r.payee_id`;

const json = (value: unknown): Record<string, unknown> | null => {
  const t = text(value);
  return t === null ? null : (JSON.parse(t) as Record<string, unknown>);
};

/** Bill records of a page of bill rows, with their lines and payments (two more queries). */
async function billRecords(
  connection: DuckDBConnection,
  rows: Record<string, unknown>[],
): Promise<BillRecord[]> {
  const ids = rows.map((r) => text(r.id)!);
  if (ids.length === 0) return [];
  // The page's bills, bound once and used by both queries.
  const params = new SqlParams();
  const ofBills = params.in('bill_id', ids, 'UUID');
  const lines = (
    await readAll(
      connection,
      `SELECT id, bill_id, kind, description, time_entry_id, project_id, task_id,
         CAST(work_date AS VARCHAR) AS work_date, duration_seconds,
         CAST(hourly_rate AS VARCHAR) AS hourly_rate, CAST(amount AS VARCHAR) AS amount,
         CAST(quantity AS VARCHAR) AS quantity, CAST(unit_price AS VARCHAR) AS unit_price,
         CAST(source_snapshot AS VARCHAR) AS source_snapshot
       FROM team_bill_lines WHERE ${ofBills} ORDER BY position, id`,
      params.values,
    )
  ).getRowObjectsJS();
  const paymentRows = (
    await readAll(
      connection,
      `SELECT DISTINCT ${PAYMENT_COLUMNS}, a.bill_id AS for_bill
       FROM ${PAYMENT_FROM}
       JOIN (SELECT * FROM team_payment_allocations WHERE ${ofBills}) a ON a.payment_id = r.id
       WHERE r.deleted_at IS NULL
       ORDER BY r.paid_date, r.id`,
      params.values,
    )
  ).getRowObjectsJS();
  const payments = await paymentRecords(connection, paymentRows);
  return rows.map((row) => {
    const id = text(row.id)!;
    const currency = text(row.currency)!;
    const payeeId = text(row.payee_id)!;
    const amount = (value: unknown) => money(value, currency)!;
    return {
      id,
      payeeId,
      userId: text(row.user_id)!,
      number: text(row.number)!,
      status: text(row.status) as BillRecord['status'],
      paymentStatus: text(row.payment_status) as BillRecord['paymentStatus'],
      revision: integer(row.revision)!,
      currency,
      total: amount(row.total),
      amountPaid: amount(row.amount_paid),
      remaining: amount(row.remaining),
      subtotal: amount(row.subtotal),
      adjustmentTotal: amount(row.adjustment_total),
      serviceFrom: text(row.service_from),
      serviceTo: text(row.service_to),
      issueDate: text(row.issue_date),
      dueDate: text(row.due_date),
      createdAt: timestamp(row.created_at)!,
      updatedAt: timestamp(row.updated_at)!,
      approvedAt: timestamp(row.approved_at),
      deletedAt: timestamp(row.deleted_at),
      note: text(row.note),
      voidReason: text(row.void_reason),
      payeeSnapshot: json(row.payee_snapshot),
      agencySnapshot: json(row.agency_snapshot),
      lineGroupBy: text(row.line_group_by),
      showProjectName: bool(row.show_project_name),
      showTaskName: bool(row.show_task_name),
      lines: lines
        .filter((l) => text(l.bill_id) === id)
        .map((l) => ({
          id: text(l.id)!,
          kind: text(l.kind) as (typeof BILL_LINE_KINDS)[number],
          description: text(l.description),
          timeEntryId: text(l.time_entry_id),
          projectId: text(l.project_id),
          taskId: text(l.task_id),
          workDate: text(l.work_date),
          durationSeconds: integer(l.duration_seconds),
          hourlyRate: rate(l.hourly_rate, currency),
          amount: amount(l.amount),
          quantity: decimal(l.quantity),
          unitPrice: rate(l.unit_price, currency),
          sourceSnapshot: json(l.source_snapshot),
        })),
      payments: payments.filter((_, i) => text(paymentRows[i]!.for_bill) === id),
      links: links(`/app/team-payouts/bills/${id}`, { payeeId }),
    };
  });
}

export const billList: ListEndpoint<BillListQuery> = {
  name: 'team-payouts/bills',
  from: BILL_FROM,
  // The figures are a view: read the page in one pass rather than computing it twice.
  lateColumns: false,
  select: BILL_COLUMNS,
  sortKeys: sortKeys({
    number: { expression: 'r.number', type: 'text' },
    status: { expression: 'r.status', type: 'text' },
    issueDate: { expression: 'r.issue_date', type: 'date', nullable: true },
    dueDate: { expression: 'r.due_date', type: 'date', nullable: true },
    total: { expression: 'f.total', type: 'decimal' },
    amountPaid: { expression: 'f.amount_paid', type: 'decimal' },
    updatedAt: { expression: 'r.updated_at', type: 'timestamp' },
  }),
  where(query: BillListQuery, params: SqlParams, caller: Caller): string[] {
    const outstanding = `(r.status = 'APPROVED' AND f.remaining > 0)`;
    const search = query.search?.trim();
    return [
      `r.workspace_id = ${params.bind(caller.workspaceId, 'UUID')}`,
      'r.deleted_at IS NULL',
      // Drafts are an Agency feature (decisions 2): a Studio workspace never lists them.
      ...(caller.plan === 'agency' ? [] : [`r.status <> 'DRAFT'`]),
      ...(query.payeeId ? [`r.payee_id = ${params.bind(query.payeeId, 'UUID')}`] : []),
      ...(query.currency ? [`r.currency = ${params.bind(query.currency, 'CURRENCY')}`] : []),
      ...(query.projectId
        ? [
            `EXISTS (SELECT 1 FROM team_bill_lines l WHERE l.bill_id = r.id AND l.project_id = ${params.bind(query.projectId, 'UUID')})`,
          ]
        : []),
      ...(query.clientId
        ? [
            `EXISTS (SELECT 1 FROM team_bill_lines l JOIN projects pr ON pr.id = l.project_id WHERE l.bill_id = r.id AND pr.client_id = ${params.bind(query.clientId, 'UUID')})`,
          ]
        : []),
      // from/to: bills whose service period overlaps the range (decisions 7); an open end
      // of the period overlaps everything on that side.
      ...(query.from
        ? [`(r.service_to IS NULL OR r.service_to >= ${params.bind(query.from, 'DATE')})`]
        : []),
      ...(query.to
        ? [`(r.service_from IS NULL OR r.service_from <= ${params.bind(query.to, 'DATE')})`]
        : []),
      ...(query.status ? [`r.status = ${params.bind(query.status)}`] : []),
      ...(query.paymentStatus ? [`f.payment_status = ${params.bind(query.paymentStatus)}`] : []),
      ...(query.outstandingOnly ? [outstanding] : []),
      // Overdue: outstanding and due before today in the workspace's time zone.
      ...(query.overdueOnly
        ? [`${outstanding} AND r.due_date < ${params.bind(todayIn(caller.timezone), 'DATE')}`]
        : []),
      // Search: a case-insensitive part of the number, the payee's name or the note.
      ...(search
        ? [
            `(contains(lower(r.number), lower(${params.bind(search)})) OR contains(lower(p.name), lower(${params.bind(search)})) OR contains(lower(coalesce(r.note, '')), lower(${params.bind(search)})))`,
          ]
        : []),
    ];
  },
  toRecords: (connection, rows) => billRecords(connection, rows),
};

/** One live bill of the workspace (not a draft on a Studio plan), or undefined. */
export async function findBill(
  connection: DuckDBConnection,
  caller: Caller,
  id: string,
): Promise<BillRecord | undefined> {
  const drafts = caller.plan === 'agency' ? '' : `AND r.status <> 'DRAFT'`;
  const rows = (
    await readAll(
      connection,
      `SELECT ${BILL_COLUMNS} FROM ${BILL_FROM}
       WHERE r.id = $id::UUID AND r.workspace_id = $ws::UUID AND r.deleted_at IS NULL ${drafts}`,
      { id, ws: caller.workspaceId },
    )
  ).getRowObjectsJS();
  return (await billRecords(connection, rows))[0];
}
