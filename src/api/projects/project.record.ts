import { z } from 'zod';
import type { Caller } from '../caller.ts';
import { decimal, money, rate, text, timestamp } from '../record-values.ts';
import { timestamps } from '../schema-parts.ts';
import { decimalText, isoDate, isoTimestamp, moneyText, uuid } from '../../value-schemas.ts';
import { PROJECT_STATUSES, RATE_TYPES } from '../../value-sets.ts';

/**
 * A project as the API answers it (api-v1 "Project"). The rate fields are absent for
 * Member tokens: compensation and pricing are not theirs to see.
 */
export const projectRecord = z.object({
  id: uuid,
  orgId: uuid,
  clientId: uuid.nullable(),
  name: z.string(),
  description: z.string().nullable(),
  color: z.string().nullable(),
  status: z.enum(PROJECT_STATUSES),
  rateType: z.enum(RATE_TYPES),
  hourlyRate: moneyText.nullable().optional(),
  fixedFeeAmount: moneyText.nullable().optional(),
  fixedFeePriorInvoicedAmount: moneyText.nullable().optional(),
  fixedFeeBillingInitializedAt: isoTimestamp.nullable().optional(),
  budgetAmount: moneyText.nullable().optional(),
  budgetHours: decimalText.nullable(),
  startDate: isoDate.nullable(),
  dueDate: isoDate.nullable(),
  ...timestamps,
});
export type ProjectRecord = z.infer<typeof projectRecord>;

/**
 * Columns of a project row; `money_currency` is the currency its amounts are in: the
 * client's, else the workspace's base currency.
 */
export const PROJECT_COLUMNS = `r.id, r.workspace_id, r.client_id, r.name, r.description, r.color,
  r.status, r.rate_type, CAST(r.hourly_rate AS VARCHAR) AS hourly_rate,
  CAST(r.fixed_fee_amount AS VARCHAR) AS fixed_fee_amount,
  CAST(r.fixed_fee_prior_invoiced_amount AS VARCHAR) AS fixed_fee_prior_invoiced_amount,
  r.fixed_fee_billing_initialized_at, CAST(r.budget_amount AS VARCHAR) AS budget_amount,
  CAST(r.budget_hours AS VARCHAR) AS budget_hours, CAST(r.start_date AS VARCHAR) AS start_date,
  CAST(r.due_date AS VARCHAR) AS due_date, r.created_at, r.updated_at, r.deleted_at,
  coalesce(c.currency, w.base_currency) AS money_currency`;

export function projectRowToRecord(row: Record<string, unknown>, caller: Caller): ProjectRecord {
  const currency = text(row.money_currency) ?? caller.baseCurrency;
  const pricing =
    caller.role === 'MEMBER'
      ? {}
      : {
          hourlyRate: rate(row.hourly_rate, currency),
          fixedFeeAmount: money(row.fixed_fee_amount, currency),
          fixedFeePriorInvoicedAmount: money(row.fixed_fee_prior_invoiced_amount, currency),
          fixedFeeBillingInitializedAt: timestamp(row.fixed_fee_billing_initialized_at),
          budgetAmount: money(row.budget_amount, currency),
        };
  return {
    id: text(row.id)!,
    orgId: text(row.workspace_id)!,
    clientId: text(row.client_id),
    name: text(row.name)!,
    description: text(row.description),
    color: text(row.color),
    status: text(row.status) as ProjectRecord['status'],
    rateType: text(row.rate_type) as ProjectRecord['rateType'],
    ...pricing,
    budgetHours: decimal(row.budget_hours),
    startDate: text(row.start_date),
    dueDate: text(row.due_date),
    createdAt: timestamp(row.created_at)!,
    updatedAt: timestamp(row.updated_at)!,
    deletedAt: timestamp(row.deleted_at),
  };
}
