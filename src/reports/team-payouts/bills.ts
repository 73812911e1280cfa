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
import {
  PAYMENT_COLUMNS,
  PAYMENT_FROM,
  paymentRecord,
  paymentRecords,
  type PaymentRecord,
} from './payments.ts';
import { BILL_PAYMENT_STATUSES, BILL_STATUSES } from '../../value-sets.ts';
import { readAll } from '../../readmodel/read-all.ts';

/** A team bill as the API answers it (docs/contract.md, "Team bill" and "Bill amounts"). */
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

/** GET /team-payouts/bills query (docs/contract.md, "Team payout queries"); strict. */
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

const LINE_COLUMNS = `l.bill_id, ${selectColumns(billLineEntity)}`;

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
      `SELECT ${LINE_COLUMNS} FROM team_bill_lines l WHERE ${ofBills} ORDER BY l.position, l.id`,
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
    return assembleBill(
      row,
      lines.filter((l) => text(l.bill_id) === id),
      payments.filter((_, i) => text(paymentRows[i]!.for_bill) === id),
    );
  });
}

/**
 * The same reads in PostgreSQL, for the webhook events (src/cli/webhook-records.ts), beside a
 * bill's own row: the figures of the bill `$1` of the workspace `$2` with the status `$3`,
 * computed as the read model computes them
 * (src/reports/team-payouts/sql/views/team_bill_figures_for.sql), with its payee's user (`$4`);
 * its lines; its live payments.
 */
export const BILL_STORE_SQL = {
  figures: `SELECT s.subtotal, s.adjustment_total, s.total, s.amount_paid,
      CASE WHEN $3 = 'VOID' THEN 0 ELSE greatest(s.total - s.amount_paid, 0) END AS remaining,
      CASE
        WHEN s.total > 0 AND s.amount_paid >= s.total THEN 'PAID'
        WHEN s.amount_paid > 0 THEN 'PARTIALLY_PAID'
        ELSE 'UNPAID'
      END AS payment_status,
      (SELECT user_id FROM payees WHERE id = $4) AS user_id
    FROM (
      SELECT l.subtotal, l.adjustment_total, l.subtotal + l.adjustment_total AS total,
        (SELECT coalesce(sum(a.amount), 0) FROM team_payment_allocations a
         JOIN team_payments tp ON tp.workspace_id = a.workspace_id AND tp.id = a.payment_id
         WHERE a.workspace_id = $2 AND a.bill_id = $1
           AND tp.status = 'RECORDED' AND tp.deleted_at IS NULL) AS amount_paid
      FROM (
        SELECT coalesce(sum(amount) FILTER (WHERE kind IN ('TIME', 'EXPENSE')), 0) AS subtotal,
          coalesce(sum(amount) FILTER (WHERE kind = 'ADJUSTMENT'), 0) AS adjustment_total
        FROM team_bill_lines WHERE workspace_id = $2 AND bill_id = $1
      ) l
    ) s`,
  lines: `SELECT ${LINE_COLUMNS} FROM team_bill_lines l WHERE l.bill_id = $1
    ORDER BY l.position, l.id`,
  payments: `SELECT ${PAYMENT_COLUMNS} FROM ${PAYMENT_FROM}
    WHERE r.deleted_at IS NULL AND EXISTS (
      SELECT 1 FROM team_payment_allocations a WHERE a.payment_id = r.id AND a.bill_id = $1)
    ORDER BY r.paid_date, r.id`,
};

/** A bill's record from its row, its lines and its payments' records (of either store). */
export function assembleBill(
  row: Record<string, unknown>,
  lines: Record<string, unknown>[],
  payments: PaymentRecord[],
): BillRecord {
  const id = text(row.id)!;
  const currency = text(row.currency)!;
  return {
    ...billFields(row),
    lines: lines.map((l) => lineFields(l, { currency })),
    payments,
    links: links(`/app/team-payouts/bills/${id}`, { payeeId: text(row.payee_id)! }),
  };
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
      // Drafts are an Agency feature (docs/contract.md, "Plans and roles"): a Studio workspace
      // never lists them.
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
      // from/to: bills whose service period overlaps the range
      // (docs/contract.md, "Team payout queries"); an open end of the period overlaps everything on
      // that side.
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
