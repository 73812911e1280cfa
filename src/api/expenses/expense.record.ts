import type { z } from 'zod';
import { expenseEntity } from '../../entities/expense.entity.ts';
import { rowToRecord } from '../entity-record.ts';

/** An expense as the API answers it (docs/contract.md, "Expense" and "Value sets"). */
export const expenseRecord = expenseEntity.record;
export type ExpenseRecord = z.infer<typeof expenseRecord>;

/** An expense row (snake_case columns, as PostgreSQL returns them) to its record. */
export const expenseRowToRecord: (row: Record<string, unknown>) => ExpenseRecord =
  rowToRecord(expenseEntity);
