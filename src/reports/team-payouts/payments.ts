import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { text } from '../../api/record-values.ts';
import { rowToRecord, selectColumns } from '../../api/entity-record.ts';
import { allocationEntity } from '../../entities/allocation.entity.ts';
import { paymentEntity } from '../../entities/payment.entity.ts';
import { sortKeys } from '../../api/list-filters.ts';
import type { Caller } from '../../api/caller.ts';
import type { ListEndpoint } from '../../api/list/list-endpoint.ts';
import {
  currencyText,
  limitParam,
  cursorParam,
  once,
  sortParam,
} from '../../api/list/list-query.ts';
import { SqlParams } from '../../readmodel/sql-params.ts';
import { links, linksRecord } from './links.ts';
import { readAll } from '../../readmodel/read-all.ts';

/** A team payment as the API answers it (docs/contract.md, "Team payment" and "Value sets"). */
export const paymentRecord = paymentEntity.record.extend({
  allocations: z.array(allocationEntity.record.extend({ links: linksRecord })),
  links: linksRecord,
});
export type PaymentRecord = z.infer<typeof paymentRecord>;

export const PAYMENT_SORT_FIELDS = ['id', 'paidDate', 'amount', 'createdAt'] as const;

/**
 * GET /team-payouts/payments query (docs/contract.md, "Team payout queries"): cursor, limit, sort,
 * currency; strict.
 */
export const paymentListQuery = z.object({
  cursor: cursorParam.optional(),
  limit: limitParam.optional(),
  sort: sortParam(PAYMENT_SORT_FIELDS).optional(),
  currency: once(currencyText).optional(),
});
export type PaymentListQuery = z.output<typeof paymentListQuery>;

export const PAYMENT_COLUMNS = selectColumns(paymentEntity);

export const PAYMENT_FROM = 'team_payments r JOIN payees p ON p.id = r.payee_id';

const paymentFields = rowToRecord(paymentEntity);
const allocationFields = rowToRecord(allocationEntity);

const ALLOCATION_COLUMNS = `a.payment_id, b.payee_id, ${selectColumns(allocationEntity)}`;

/** Payment records of a page of payment rows, with their allocations (one more query). */
export async function paymentRecords(
  connection: DuckDBConnection,
  rows: Record<string, unknown>[],
): Promise<PaymentRecord[]> {
  const ids = rows.map((r) => text(r.id)!);
  if (ids.length === 0) return [];
  const params = new SqlParams();
  const allocations = (
    await readAll(
      connection,
      `SELECT ${ALLOCATION_COLUMNS}
       FROM team_payment_allocations a JOIN team_bills b ON b.id = a.bill_id
       WHERE ${params.in('a.payment_id', ids, 'UUID')}
       ORDER BY a.position, a.bill_id`,
      params.values,
    )
  ).getRowObjectsJS();
  return rows.map((row) =>
    assemblePayment(
      row,
      allocations.filter((a) => text(a.payment_id) === text(row.id)),
    ),
  );
}

/**
 * The same reads in PostgreSQL, for the webhook events (src/cli/webhook-records.ts), beside a
 * payment's own row: the user of its payee `$1`; the allocations of the payments `$1`.
 */
export const PAYMENT_STORE_SQL = {
  payee: 'SELECT user_id FROM payees WHERE id = $1',
  allocations: `SELECT ${ALLOCATION_COLUMNS}
    FROM team_payment_allocations a JOIN team_bills b ON b.id = a.bill_id
    WHERE a.payment_id = ANY($1::uuid[]) ORDER BY a.position, a.bill_id`,
};

/**
 * A payment's record from its row and its allocations (rows of either store, with the
 * columns of PAYMENT_COLUMNS and ALLOCATION_COLUMNS).
 */
export function assemblePayment(
  row: Record<string, unknown>,
  allocations: Record<string, unknown>[],
): PaymentRecord {
  const id = text(row.id)!;
  const payeeId = text(row.payee_id)!;
  return {
    ...paymentFields(row),
    allocations: allocations.map((a) => ({
      ...allocationFields(a),
      links: links(`/app/team-payouts/bills/${text(a.bill_id)!}`, {
        payeeId: text(a.payee_id),
      }),
    })),
    links: links(`/app/team-payouts/payments/${id}`, { payeeId }),
  };
}

export const paymentList: ListEndpoint<PaymentListQuery> = {
  name: 'team-payouts/payments',
  from: PAYMENT_FROM,
  select: PAYMENT_COLUMNS,
  sortKeys: sortKeys({
    paidDate: { expression: 'r.paid_date', type: 'date' },
    amount: { expression: 'r.amount', type: 'decimal' },
  }),
  where(query: PaymentListQuery, params: SqlParams, caller: Caller): string[] {
    return [
      `r.workspace_id = ${params.bind(caller.workspaceId, 'UUID')}`,
      'r.deleted_at IS NULL',
      // The currency filter is the actual transfer currency
      // (docs/contract.md, "Team payout queries").
      ...(query.currency ? [`r.currency = ${params.bind(query.currency, 'CURRENCY')}`] : []),
    ];
  },
  toRecords: (connection, rows) => paymentRecords(connection, rows),
};

/** One live payment of the workspace, or undefined. */
export async function findPayment(
  connection: DuckDBConnection,
  workspaceId: string,
  id: string,
): Promise<PaymentRecord | undefined> {
  const rows = (
    await readAll(
      connection,
      `SELECT ${PAYMENT_COLUMNS} FROM ${PAYMENT_FROM}
       WHERE r.id = $id::UUID AND r.workspace_id = $ws::UUID AND r.deleted_at IS NULL`,
      { id, ws: workspaceId },
    )
  ).getRowObjectsJS();
  return (await paymentRecords(connection, rows))[0];
}
