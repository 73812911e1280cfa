import { EXPENSE_CATEGORIES } from '../value-sets.ts';
import {
  audit,
  boolean,
  currency,
  date,
  defineEntity,
  money,
  oneOf,
  text,
  uuid,
} from './entity.ts';

/** An expense (api-v1 "Expense", decisions 4), over `expenses r`. */
export const expenseEntity = defineEntity('r', {
  id: uuid(),
  orgId: uuid().column('workspace_id'),
  clientId: uuid(),
  projectId: uuid().nullable(),
  invoiceId: uuid().nullable(),
  category: oneOf(EXPENSE_CATEGORIES),
  customCategory: text().nullable(),
  description: text(),
  amount: money(),
  currency: currency(),
  billable: boolean(),
  expenseDate: date(),
  ...audit,
});
