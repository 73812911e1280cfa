import { z } from 'zod';
import type { Caller } from '../caller.ts';
import { liveInWorkspace, type ListEndpoint } from '../list/list-endpoint.ts';
import {
  booleanText,
  currencyText,
  dateRanges,
  listQuery,
  many,
  moneyBound,
  once,
} from '../list/list-query.ts';
import type { SqlParams } from '../../readmodel/sql-params.ts';
import { searchQuery } from '../../search/search.ts';
import {
  clientNameCondition,
  dateRangeConditions,
  flag,
  moneyRangeConditions,
  sortKeys,
} from '../list-filters.ts';
import { INVOICE_PAYMENT_STATUSES, INVOICE_STATUSES } from '../../value-sets.ts';
import { INVOICE_COLUMNS, invoiceRowToRecord } from './invoice.record.ts';

export const INVOICE_SORT_FIELDS = [
  'amountPaid',
  'createdAt',
  'dueDate',
  'id',
  'issueDate',
  'number',
  'paidAt',
  'paymentStatus',
  'relevance',
  'sentAt',
  'status',
  'total',
  'updatedAt',
] as const;

const MONEY_RANGES = ['total', 'amountPaid', 'balance'] as const;

/** GET /invoices query (docs/contract.md, "GET /invoices"). */
export const invoiceListQuery = listQuery(INVOICE_SORT_FIELDS, {
  clientName: once(z.string().max(200)).optional(),
  clientId: many(z.uuid()).optional(),
  currency: many(currencyText).optional(),
  status: many(z.enum(INVOICE_STATUSES)).optional(),
  paymentStatus: many(z.enum(INVOICE_PAYMENT_STATUSES)).optional(),
  recurring: booleanText.optional(),
  viewed: booleanText.optional(),
  ...dateRanges(['issueDate', 'dueDate', 'sentAt', 'paidAt', 'createdAt', 'updatedAt']),
  ...Object.fromEntries(
    MONEY_RANGES.flatMap((m) => [
      [`${m}Min`, moneyBound.optional()],
      [`${m}Max`, moneyBound.optional()],
    ]),
  ),
});
export type InvoiceListQuery = z.output<typeof invoiceListQuery>;

export const invoiceList: ListEndpoint<InvoiceListQuery> = {
  name: 'invoices',
  from: 'invoices r',
  cached: { table: 'invoices' },
  select: INVOICE_COLUMNS,
  sortKeys: sortKeys({
    amountPaid: { expression: 'r.amount_paid', type: 'decimal' },
    dueDate: { expression: 'r.due_date', type: 'date', nullable: true },
    issueDate: { expression: 'r.issue_date', type: 'date', nullable: true },
    number: { expression: 'r.number', type: 'text' },
    paidAt: { expression: 'r.paid_at', type: 'timestamp', nullable: true },
    paymentStatus: { expression: 'r.payment_status', type: 'text' },
    sentAt: { expression: 'r.sent_at', type: 'timestamp', nullable: true },
    status: { expression: 'r.status', type: 'text' },
    total: { expression: 'r.total', type: 'decimal' },
    updatedAt: { expression: 'r.updated_at', type: 'timestamp' },
  }),
  where(query: InvoiceListQuery, params: SqlParams, caller: Caller): string[] {
    return [
      ...liveInWorkspace(params, caller.workspaceId),
      ...(query.clientName ? [clientNameCondition(params, query.clientName)] : []),
      ...(query.clientId ? [params.in('r.client_id', query.clientId, 'UUID')] : []),
      ...(query.currency ? [params.oneOf('r.currency', query.currency)] : []),
      ...(query.status ? [params.oneOf('r.status', query.status)] : []),
      ...(query.paymentStatus ? [params.oneOf('r.payment_status', query.paymentStatus)] : []),
      ...flag(query.recurring, 'r.recurring'),
      ...flag(query.viewed, 'r.viewed'),
      ...dateRangeConditions(query, params, {
        issueDate: { expression: 'r.issue_date', type: 'date' },
        dueDate: { expression: 'r.due_date', type: 'date' },
        sentAt: { expression: 'r.sent_at', type: 'timestamp' },
        paidAt: { expression: 'r.paid_at', type: 'timestamp' },
        createdAt: { expression: 'r.created_at', type: 'timestamp' },
        updatedAt: { expression: 'r.updated_at', type: 'timestamp' },
      }),
      ...moneyRangeConditions(query, params, {
        total: 'r.total',
        amountPaid: 'r.amount_paid',
        balance: '(r.total - r.amount_paid)',
      }),
    ];
  },
  search: (workspaceId, text) => searchQuery('invoice', workspaceId, text),
  searchOnLargeTable: true,
  toRecord: (row) => invoiceRowToRecord(row),
};

/** One invoice of the caller's workspace by id, or undefined (also for a deleted one). */
export const INVOICE_BY_ID = `SELECT ${INVOICE_COLUMNS} FROM invoices r
  WHERE r.id = CAST($id AS UUID) AND r.workspace_id = CAST($ws AS UUID) AND r.deleted_at IS NULL`;
