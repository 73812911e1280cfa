import { PAYMENT_STATUSES } from '../value-sets.ts';
import {
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

/**
 * A team payment (api-v1 "Team payment", decisions 4), over `team_payments r JOIN payees p ON
 * p.id = r.payee_id`.
 */
export const paymentEntity = defineEntity('r', {
  id: uuid(),
  payeeId: uuid(),
  userId: uuid().from('p.user_id'),
  currency: currency(),
  amount: money(),
  paidDate: date(),
  method: text(),
  savedMethodId: uuid().nullable(),
  reference: text().nullable(),
  note: text().nullable(),
  status: oneOf(PAYMENT_STATUSES),
  createdAt: timestamp(),
  reversedAt: timestamp().nullable(),
  reversalReason: text().nullable(),
  settlementCurrency: currency().nullable(),
  settlementAmount: money('settlementCurrency').nullable(),
  exchangeRate: decimal().nullable(),
  settlementMode: text(),
});
