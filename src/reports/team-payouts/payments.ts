import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { decimal, money, text, timestamp } from '../../api/record-values.ts';
import { currencyCode, isoDate, isoTimestamp, moneyText, uuid } from '../../api/schema-parts.ts';
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
import { PAYMENT_STATUSES } from '../../value-sets.ts';
import { readAll } from '../../readmodel/read-all.ts';

/** A team payment as the API answers it (api-v1 "Team payment", decisions 4). */
export const paymentRecord = z.object({
  id: uuid,
  payeeId: uuid,
  userId: uuid,
  currency: currencyCode,
  amount: moneyText,
  paidDate: isoDate,
  method: z.string(),
  savedMethodId: uuid.nullable(),
  reference: z.string().nullable(),
  note: z.string().nullable(),
  status: z.enum(PAYMENT_STATUSES),
  createdAt: isoTimestamp,
  reversedAt: isoTimestamp.nullable(),
  reversalReason: z.string().nullable(),
  settlementCurrency: currencyCode.nullable(),
  settlementAmount: moneyText.nullable(),
  exchangeRate: z.string().nullable(),
  settlementMode: z.string(),
  allocations: z.array(
    z.object({
      billId: uuid,
      number: z.string(),
      currency: currencyCode,
      amount: moneyText,
      cashAmount: moneyText.nullable(),
      cashCurrency: currencyCode.nullable(),
      links: linksRecord,
    }),
  ),
  links: linksRecord,
});
export type PaymentRecord = z.infer<typeof paymentRecord>;

export const PAYMENT_SORT_FIELDS = ['id', 'paidDate', 'amount', 'createdAt'] as const;

/** GET /team-payouts/payments query (decisions 7): cursor, limit, sort, currency; strict. */
export const paymentListQuery = z.object({
  cursor: cursorParam.optional(),
  limit: limitParam.optional(),
  sort: sortParam(PAYMENT_SORT_FIELDS).optional(),
  currency: once(currencyText).optional(),
});
export type PaymentListQuery = z.output<typeof paymentListQuery>;

export const PAYMENT_COLUMNS = `r.id, r.payee_id, p.user_id, r.currency, CAST(r.amount AS VARCHAR) AS amount,
  CAST(r.paid_date AS VARCHAR) AS paid_date, r.method, r.saved_method_id, r.reference, r.note,
  r.status, r.created_at, r.reversed_at, r.reversal_reason, r.settlement_currency,
  CAST(r.settlement_amount AS VARCHAR) AS settlement_amount,
  CAST(r.exchange_rate AS VARCHAR) AS exchange_rate, r.settlement_mode`;

export const PAYMENT_FROM = 'team_payments r JOIN payees p ON p.id = r.payee_id';

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
      `SELECT a.payment_id, a.bill_id, b.number, b.currency, CAST(a.amount AS VARCHAR) AS amount,
         CAST(a.cash_amount AS VARCHAR) AS cash_amount, a.cash_currency, b.payee_id
       FROM team_payment_allocations a JOIN team_bills b ON b.id = a.bill_id
       WHERE ${params.in('a.payment_id', ids, 'UUID')}
       ORDER BY a.position, a.bill_id`,
      params.values,
    )
  ).getRowObjectsJS();
  return rows.map((row) => {
    const id = text(row.id)!;
    const payeeId = text(row.payee_id)!;
    const currency = text(row.currency)!;
    const settlementCurrency = text(row.settlement_currency);
    return {
      id,
      payeeId,
      userId: text(row.user_id)!,
      currency,
      amount: money(row.amount, currency)!,
      paidDate: text(row.paid_date)!,
      method: text(row.method)!,
      savedMethodId: text(row.saved_method_id),
      reference: text(row.reference),
      note: text(row.note),
      status: text(row.status) as PaymentRecord['status'],
      createdAt: timestamp(row.created_at)!,
      reversedAt: timestamp(row.reversed_at),
      reversalReason: text(row.reversal_reason),
      settlementCurrency,
      settlementAmount:
        settlementCurrency === null ? null : money(row.settlement_amount, settlementCurrency),
      exchangeRate: decimal(row.exchange_rate),
      settlementMode: text(row.settlement_mode)!,
      allocations: allocations
        .filter((a) => text(a.payment_id) === id)
        .map((a) => {
          const billCurrency = text(a.currency)!;
          const cashCurrency = text(a.cash_currency);
          const billId = text(a.bill_id)!;
          return {
            billId,
            number: text(a.number)!,
            currency: billCurrency,
            amount: money(a.amount, billCurrency)!,
            cashAmount: cashCurrency === null ? null : money(a.cash_amount, cashCurrency),
            cashCurrency,
            links: links(`/app/team-payouts/bills/${billId}`, { payeeId: text(a.payee_id) }),
          };
        }),
      links: links(`/app/team-payouts/payments/${id}`, { payeeId }),
    };
  });
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
      // The currency filter is the actual transfer currency (api-v1).
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
