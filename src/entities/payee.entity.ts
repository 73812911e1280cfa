import { snapshotName, snapshotNonNegative } from '../value-schemas.ts';
import {
  createdAt,
  currency,
  date,
  defineEntity,
  filled,
  money,
  rate,
  text,
  timestamp,
  uuid,
} from './entity.ts';

/**
 * A team payee (docs/contract.md, "Team payee"), over `payees r`; the API answers its live rates
 * and credits inside it, a snapshot nests all of them.
 */
export const payeeEntity = defineEntity(
  'r',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id').only('snapshot'),
    userId: uuid(),
    name: text().inSnapshot(snapshotName),
    email: text().nullable(),
    startDate: date().nullable(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    deletedAt: timestamp().nullable().only('snapshot'),
  },
  [
    'id',
    filled('orgId'),
    'userId',
    'name',
    'email',
    'startDate',
    'createdAt',
    'updatedAt',
    'deletedAt',
  ],
);

/** A payee's hourly rate from a day on, over `payee_rates r`. */
export const payeeRateEntity = defineEntity(
  'r',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id').only('snapshot'),
    payeeId: uuid().only('snapshot'),
    effectiveFrom: date(),
    hourlyRate: rate().inSnapshot(snapshotNonNegative()),
    currency: currency(),
    createdAt: createdAt(),
  },
  [
    'id',
    filled('orgId'),
    filled('payeeId'),
    'effectiveFrom',
    'hourlyRate',
    'currency',
    'createdAt',
  ],
);

/** A payee's credit (an advance), a ledger balance, over `payee_credits r`. */
export const payeeCreditEntity = defineEntity(
  'r',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id').only('snapshot'),
    payeeId: uuid().only('snapshot'),
    currency: currency(),
    amount: money(),
    remaining: money(),
    reason: text().nullable(),
    createdAt: createdAt().only('snapshot'),
  },
  [
    'id',
    filled('orgId'),
    filled('payeeId'),
    'currency',
    'amount',
    'remaining',
    'reason',
    'createdAt',
  ],
);
