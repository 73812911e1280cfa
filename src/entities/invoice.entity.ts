import { INVOICE_PAYMENT_STATUSES, INVOICE_STATUSES } from '../value-sets.ts';
import {
  audit,
  currency,
  date,
  decimal,
  defineEntity,
  money,
  oneOf,
  text,
  timestamp,
  uuid,
} from './entity.ts';

/** An invoice (api-v1 "Invoice (read-only)"), over `invoices r`. */
export const invoiceEntity = defineEntity('r', {
  id: uuid(),
  orgId: uuid().column('workspace_id'),
  clientId: uuid(),
  number: text(),
  billToName: text().nullable(),
  notes: text().nullable(),
  currency: currency(),
  status: oneOf(INVOICE_STATUSES),
  paymentStatus: oneOf(INVOICE_PAYMENT_STATUSES),
  subtotal: money(),
  discountAmount: money(),
  total: money(),
  amountPaid: money(),
  taxRate: decimal().nullable(),
  issueDate: date().nullable(),
  dueDate: date().nullable(),
  sentAt: timestamp().nullable(),
  paidAt: timestamp().nullable(),
  ...audit,
});
