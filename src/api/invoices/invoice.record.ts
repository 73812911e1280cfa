import { z } from 'zod';
import { decimal, money, text, timestamp } from '../record-values.ts';
import { timestamps } from '../schema-parts.ts';
import {
  currencyCode,
  decimalText,
  isoDate,
  isoTimestamp,
  moneyText,
  uuid,
} from '../../value-schemas.ts';
import { INVOICE_PAYMENT_STATUSES, INVOICE_STATUSES } from '../../value-sets.ts';

/** An invoice as the API answers it (api-v1 "Invoice (read-only)"). */
export const invoiceRecord = z.object({
  id: uuid,
  orgId: uuid,
  clientId: uuid,
  number: z.string(),
  billToName: z.string().nullable(),
  notes: z.string().nullable(),
  currency: currencyCode,
  status: z.enum(INVOICE_STATUSES),
  paymentStatus: z.enum(INVOICE_PAYMENT_STATUSES),
  subtotal: moneyText,
  discountAmount: moneyText,
  total: moneyText,
  amountPaid: moneyText,
  taxRate: decimalText.nullable(),
  issueDate: isoDate.nullable(),
  dueDate: isoDate.nullable(),
  sentAt: isoTimestamp.nullable(),
  paidAt: isoTimestamp.nullable(),
  ...timestamps,
});
export type InvoiceRecord = z.infer<typeof invoiceRecord>;

export const INVOICE_COLUMNS = `r.id, r.workspace_id, r.client_id, r.number, r.bill_to_name,
  r.notes, r.currency, r.status, r.payment_status, CAST(r.subtotal AS VARCHAR) AS subtotal,
  CAST(r.discount_amount AS VARCHAR) AS discount_amount, CAST(r.total AS VARCHAR) AS total,
  CAST(r.amount_paid AS VARCHAR) AS amount_paid, CAST(r.tax_rate AS VARCHAR) AS tax_rate,
  CAST(r.issue_date AS VARCHAR) AS issue_date, CAST(r.due_date AS VARCHAR) AS due_date,
  r.sent_at, r.paid_at, r.created_at, r.updated_at, r.deleted_at`;

export function invoiceRowToRecord(row: Record<string, unknown>): InvoiceRecord {
  const currency = text(row.currency)!;
  const amount = (value: unknown) => money(value, currency)!;
  return {
    id: text(row.id)!,
    orgId: text(row.workspace_id)!,
    clientId: text(row.client_id)!,
    number: text(row.number)!,
    billToName: text(row.bill_to_name),
    notes: text(row.notes),
    currency,
    status: text(row.status) as InvoiceRecord['status'],
    paymentStatus: text(row.payment_status) as InvoiceRecord['paymentStatus'],
    subtotal: amount(row.subtotal),
    discountAmount: amount(row.discount_amount),
    total: amount(row.total),
    amountPaid: amount(row.amount_paid),
    taxRate: decimal(row.tax_rate),
    issueDate: text(row.issue_date),
    dueDate: text(row.due_date),
    sentAt: timestamp(row.sent_at),
    paidAt: timestamp(row.paid_at),
    createdAt: timestamp(row.created_at)!,
    updatedAt: timestamp(row.updated_at)!,
    deletedAt: timestamp(row.deleted_at),
  };
}
