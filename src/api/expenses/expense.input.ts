import { z } from 'zod';
import { decimalInput, optionalText, parseBody, requiredText } from '../write-body.ts';
import { isoDate, uuid } from '../../value-schemas.ts';
import { EXPENSE_CATEGORIES } from '../../value-sets.ts';

const fields = {
  clientId: uuid,
  description: requiredText(1000),
  // The scale is checked against the expense's currency once the client is known.
  amount: decimalInput().refine((v) => /[1-9]/.test(v) && !v.startsWith('-'), 'must be above 0'),
  expenseDate: isoDate,
  projectId: uuid.nullable().optional(),
  category: z
    .enum(EXPENSE_CATEGORIES, { error: `must be one of ${EXPENSE_CATEGORIES.join(', ')}` })
    .optional(),
  customCategory: optionalText(100).optional(),
  billable: z.boolean({ error: 'must be true or false' }).optional(),
  // Not accepted: the server snapshots the client's currency (docs/contract.md, "Expense writes").
  currency: z
    .never({ error: 'is not accepted: the expense takes its client’s currency' })
    .optional(),
};

/** POST /expenses body: clientId, description, amount and expenseDate required. */
export const expenseCreateInput = z.object(fields);
/** PATCH /expenses/{id} body: every field optional. */
export const expenseUpdateInput = z.object(fields).partial();

export type ExpenseCreateInput = z.output<typeof expenseCreateInput>;
export type ExpenseUpdateInput = z.output<typeof expenseUpdateInput>;

export const parseExpenseUpdate = (body: unknown) => parseBody(expenseUpdateInput, body);
