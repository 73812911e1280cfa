import { z } from 'zod';
import { bool, money, text, timestamp } from '../record-values.ts';
import { timestamps } from '../schema-parts.ts';
import { currencyCode, isoDate, moneyText, uuid } from '../../value-schemas.ts';
import { EXPENSE_CATEGORIES } from '../../value-sets.ts';

/** An expense as the API answers it (api-v1 "Expense", decisions 4). */
export const expenseRecord = z.object({
  id: uuid,
  orgId: uuid,
  clientId: uuid,
  projectId: uuid.nullable(),
  invoiceId: uuid.nullable(),
  category: z.enum(EXPENSE_CATEGORIES),
  customCategory: z.string().nullable(),
  description: z.string(),
  amount: moneyText,
  currency: currencyCode,
  billable: z.boolean(),
  expenseDate: isoDate,
  ...timestamps,
});
export type ExpenseRecord = z.infer<typeof expenseRecord>;

export function expenseRowToRecord(row: Record<string, unknown>): ExpenseRecord {
  const currency = text(row.currency)!;
  return {
    id: text(row.id)!,
    orgId: text(row.workspace_id)!,
    clientId: text(row.client_id)!,
    projectId: text(row.project_id),
    invoiceId: text(row.invoice_id),
    category: text(row.category) as ExpenseRecord['category'],
    customCategory: text(row.custom_category),
    description: text(row.description)!,
    amount: money(row.amount, currency)!,
    currency,
    billable: bool(row.billable),
    expenseDate: text(row.expense_date)!,
    createdAt: timestamp(row.created_at)!,
    updatedAt: timestamp(row.updated_at)!,
    deletedAt: timestamp(row.deleted_at),
  };
}
