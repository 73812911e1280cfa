import { snapshotName, snapshotNonNegative } from '../value-schemas.ts';
import { PROJECT_STATUSES, RATE_TYPES } from '../value-sets.ts';
import {
  audit,
  date,
  decimal,
  defineEntity,
  filled,
  money,
  oneOf,
  rate,
  text,
  timestamp,
  uuid,
} from './entity.ts';

/**
 * A project (docs/contract.md, "Project"), over `projects r`. Its amounts are in its client's
 * currency, else the workspace's (the row context's); the pricing fields are left out for Member
 * tokens, whom compensation and pricing are not to show.
 */
export const projectEntity = defineEntity(
  'r',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id'),
    clientId: uuid().nullable(),
    name: text().inSnapshot(snapshotName),
    description: text().nullable(),
    color: text().nullable(),
    status: oneOf(PROJECT_STATUSES).byDefault('ACTIVE'),
    rateType: oneOf(RATE_TYPES).byDefault('HOURLY'),
    hourlyRate: rate(null).inSnapshot(snapshotNonNegative()).nullable().optional(),
    fixedFeeAmount: money(null).inSnapshot(snapshotNonNegative()).nullable().optional(),
    fixedFeePriorInvoicedAmount: money(null)
      .inSnapshot(snapshotNonNegative())
      .nullable()
      .optional(),
    fixedFeeBillingInitializedAt: timestamp().nullable().optional(),
    budgetAmount: money(null).inSnapshot(snapshotNonNegative()).nullable().optional(),
    budgetHours: decimal().inSnapshot(snapshotNonNegative()).nullable(),
    startDate: date().nullable(),
    dueDate: date().nullable(),
    ...audit,
  },
  [
    'id',
    filled('orgId'),
    'clientId',
    'name',
    'description',
    'color',
    'status',
    'rateType',
    'hourlyRate',
    'fixedFeeAmount',
    'fixedFeePriorInvoicedAmount',
    'fixedFeeBillingInitializedAt',
    'budgetAmount',
    'budgetHours',
    'startDate',
    'dueDate',
    'createdAt',
    'updatedAt',
    'deletedAt',
  ],
);

/** The fields a Member token does not see. */
export const PROJECT_PRICING = [
  'hourlyRate',
  'fixedFeeAmount',
  'fixedFeePriorInvoicedAmount',
  'fixedFeeBillingInitializedAt',
  'budgetAmount',
] as const;
