import { snapshotText } from '../value-schemas.ts';
import { EXPENSE_CATEGORIES } from '../value-sets.ts';
import {
  audit,
  boolean,
  currency,
  date,
  defineEntity,
  filled,
  money,
  oneOf,
  text,
  uuid,
} from './entity.ts';

/** An expense (docs/contract.md, "Expense" and "Value sets"), over `expenses r`. */
export const expenseEntity = defineEntity(
  'r',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id'),
    clientId: uuid(),
    projectId: uuid().nullable(),
    invoiceId: uuid().nullable(),
    category: oneOf(EXPENSE_CATEGORIES).byDefault('OTHER'),
    customCategory: text(100).nullable(),
    description: text(1000).inSnapshot(snapshotText.min(1).max(1000)),
    amount: money(),
    currency: currency(),
    billable: boolean().byDefault(true),
    expenseDate: date(),
    ...audit,
  },
  [
    'id',
    filled('orgId'),
    'clientId',
    'projectId',
    'invoiceId',
    'category',
    'customCategory',
    'description',
    'amount',
    'currency',
    'billable',
    'expenseDate',
    'createdAt',
    'updatedAt',
    'deletedAt',
  ],
);
