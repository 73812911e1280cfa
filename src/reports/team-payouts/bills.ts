import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { text } from '../../api/record-values.ts';
import { rowToRecord, selectColumns } from '../../api/entity-record.ts';
import { billLineEntity } from '../../entities/bill-line.entity.ts';
import { billEntity } from '../../entities/bill.entity.ts';
import { isoDate } from '../../value-schemas.ts';
import { sortKeys } from '../../api/list-filters.ts';
import type { Caller } from '../../api/caller.ts';
import type { ListEndpoint } from '../../api/list/list-endpoint.ts';
import { booleanText, currencyText, listQuery, once } from '../../api/list/list-query.ts';
import { SqlParams } from '../../readmodel/sql-params.ts';
import { todayIn } from '../../time/calendar.ts';
import { links, linksRecord } from './links.ts';
import { PAYMENT_COLUMNS, PAYMENT_FROM, paymentRecord, paymentRecords } from './payments.ts';
import { BILL_PAYMENT_STATUSES, BILL_STATUSES } from '../../value-sets.ts';
import { readAll } from '../../readmodel/read-all.ts';

/** A team bill as the API answers it (api-v1 "Team bill", decisions 7 "Bill amounts"). */
export const billRecord = billEntity.record.extend({
  lines: z.array(billLineEntity.record),
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

/** GET /team-payouts/bills query (api-v1); strict. */
export const billListQuery = listQuery(BILL_SORT_FIELDS, {
  payeeId: once(z.uuid()).optional(),
  currency: once(currencyText).optional(),
  clientId: once(z.uuid()).optional(),
  projectId: once(z.uuid()).optional(),
  from: once(isoDate).optional(),
  to: once(isoDate).optional(),
  status: once(z.enum(BILL_STATUSES)).optional(),
  paymentStatus: once(z.enum(BILL_PAYMENT_STATUSES)).optional(),
  outstandingOnly: booleanText.optional(),
  overdueOnly: booleanText.optional(),
});
export type BillListQuery = z.output<typeof billListQuery>;

const BILL_COLUMNS = selectColumns(billEntity);

const BILL_FROM = `team_bills r JOIN team_bill_figures f ON f.bill_id = r.id
  JOIN payees p ON p.id = r.payee_id`;

const billFields = rowToRecord(billEntity);
const lineFields = rowToRecord(billLineEntity);

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
      `SELECT l.bill_id, ${selectColumns(billLineEntity)}
       FROM team_bill_lines l WHERE ${ofBills} ORDER BY l.position, l.id`,
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
    return {
      ...billFields(row),
      lines: lines.filter((l) => text(l.bill_id) === id).map((l) => lineFields(l, { currency })),
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
