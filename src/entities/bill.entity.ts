import { BILL_PAYMENT_STATUSES, BILL_STATUSES } from '../value-sets.ts';
import {
  boolean,
  currency,
  date,
  defineEntity,
  integer,
  json,
  money,
  oneOf,
  text,
  timestamp,
  uuid,
} from './entity.ts';

/**
 * A team bill (api-v1 "Team bill", decisions 7 "Bill amounts"), over `team_bills r JOIN
 * team_bill_figures f ON f.bill_id = r.id JOIN payees p ON p.id = r.payee_id`: its amounts and
 * payment status are the figures the read model keeps.
 */
export const billEntity = defineEntity('r', {
  id: uuid(),
  payeeId: uuid(),
  userId: uuid().from('p.user_id'),
  number: text(),
  status: oneOf(BILL_STATUSES),
  paymentStatus: oneOf(BILL_PAYMENT_STATUSES).from('f.payment_status'),
  revision: integer(),
  currency: currency(),
  total: money().from('f.total'),
  amountPaid: money().from('f.amount_paid'),
  remaining: money().from('f.remaining'),
  subtotal: money().from('f.subtotal'),
  adjustmentTotal: money().from('f.adjustment_total'),
  serviceFrom: date().nullable(),
  serviceTo: date().nullable(),
  issueDate: date().nullable(),
  dueDate: date().nullable(),
  createdAt: timestamp(),
  updatedAt: timestamp(),
  approvedAt: timestamp().nullable(),
  deletedAt: timestamp().nullable(),
  note: text().nullable(),
  voidReason: text().nullable(),
  payeeSnapshot: json().nullable().only('api'),
  agencySnapshot: json().nullable().only('api'),
  lineGroupBy: text().nullable(),
  showProjectName: boolean(),
  showTaskName: boolean(),
});
