import { z } from 'zod';
import { snapshotDecimal } from '../value-schemas.ts';
import { PAYMENT_METHODS, PAYMENT_STATUSES, SETTLEMENT_MODES } from '../value-sets.ts';
import {
  createdAt,
  currency,
  date,
  decimal,
  defineEntity,
  filled,
  money,
  oneOf,
  text,
  timestamp,
  uuid,
} from './entity.ts';

/**
 * A team payment (docs/contract.md, "Team payment" and "Value sets"), over `team_payments r JOIN
 * payees p ON p.id = r.payee_id`. A snapshot takes only the methods and settlement modes of the
 * value sets.
 */
export const paymentEntity = defineEntity(
  'r',
  {
    id: uuid(),
    payeeId: uuid(),
    userId: uuid().from('p.user_id'),
    currency: currency(),
    amount: money(),
    paidDate: date(),
    method: text().inSnapshot(z.enum(PAYMENT_METHODS)),
    savedMethodId: uuid().nullable(),
    reference: text().nullable(),
    note: text().nullable(),
    status: oneOf(PAYMENT_STATUSES),
    createdAt: createdAt(),
    reversedAt: timestamp().nullable(),
    reversalReason: text().nullable(),
    settlementCurrency: currency().nullable(),
    settlementAmount: money('settlementCurrency').nullable(),
    exchangeRate: decimal().inSnapshot(snapshotDecimal(10)).nullable(),
    settlementMode: text().inSnapshot(z.enum(SETTLEMENT_MODES).default('SAME_CURRENCY')),
    updatedAt: createdAt().only('snapshot'),
    deletedAt: timestamp().nullable().only('snapshot'),
    orgId: uuid().column('workspace_id').only('snapshot'),
  },
  [
    'id',
    filled('orgId'),
    'payeeId',
    'currency',
    'amount',
    'paidDate',
    'method',
    'savedMethodId',
    'reference',
    'note',
    'status',
    'reversedAt',
    'reversalReason',
    'settlementCurrency',
    'settlementAmount',
    'exchangeRate',
    'settlementMode',
    'createdAt',
    'updatedAt',
    'deletedAt',
  ],
);
