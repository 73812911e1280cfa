import { randomUUID } from 'node:crypto';
import type { Transaction, Updateable } from 'kysely';
import { validationFailed } from '../errors.ts';
import { currencyScale } from '../../money/currencies.ts';
import { decimalTextProblem, Money } from '../../money/money.ts';
import type { ExpenseTable } from '../../store/record-tables.ts';
import type { Database } from '../../store/schema.ts';
import { requireProject } from '../references.ts';
import type { ExpenseUpdateInput } from './expense.input.ts';

type ExpenseRow = Record<string, unknown>;

/**
 * The currency an expense of `clientId` is kept in: the client's, else the workspace's base
 * currency (docs/contract.md, "Expense writes"). 422 when the client is not a live client of the
 * workspace.
 */
async function clientCurrency(
  trx: Transaction<Database>,
  workspaceId: string,
  clientId: string,
): Promise<string> {
  const client = await trx
    .selectFrom('clients')
    .innerJoin('workspaces', 'workspaces.id', 'clients.workspace_id')
    .select(['clients.currency', 'workspaces.base_currency'])
    .where('clients.id', '=', clientId)
    .where('clients.workspace_id', '=', workspaceId)
    .where('clients.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!client) throw validationFailed({ clientId: 'does not exist' });
  return client.currency ?? client.base_currency;
}

/**
 * The expense as it will be once `input` applies to `current` (nothing for a create), with
 * every rule that spans fields checked: the amount's decimals against the currency, the
 * project of the same client, customCategory only with OTHER.
 */
async function resolve(
  trx: Transaction<Database>,
  workspaceId: string,
  input: ExpenseUpdateInput,
  current: Partial<Record<keyof ExpenseTable, unknown>>,
): Promise<Updateable<ExpenseTable>> {
  const clientId = input.clientId ?? (current.client_id as string);
  const currency =
    input.clientId !== undefined || current.currency === undefined
      ? await clientCurrency(trx, workspaceId, clientId)
      : (current.currency as string);
  // A stored amount is NUMERIC(18,4) text ("10.0000"): its significant digits are what count.
  const amount = input.amount ?? new Money(current.amount as string).toFixed();
  const problem = decimalTextProblem(amount, currencyScale(currency) ?? 2);
  if (problem) throw validationFailed({ amount: `${problem} in ${currency}` });
  const projectId =
    input.projectId !== undefined
      ? input.projectId
      : ((current.project_id as string | null) ?? null);
  if (projectId !== null) {
    const project = await requireProject(trx, workspaceId, projectId);
    if (project.client_id !== null && project.client_id !== clientId)
      throw validationFailed({ projectId: 'belongs to another client' });
  }
  const category = input.category ?? (current.category as string | undefined) ?? 'OTHER';
  const customCategory =
    input.customCategory !== undefined
      ? input.customCategory
      : ((current.custom_category as string | null | undefined) ?? null);
  if (customCategory !== null && category !== 'OTHER')
    throw validationFailed({ customCategory: 'is only for the category OTHER' });
  return {
    client_id: clientId,
    currency,
    amount,
    project_id: projectId,
    category,
    custom_category: customCategory,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.expenseDate !== undefined ? { expense_date: input.expenseDate } : {}),
    ...(input.billable !== undefined ? { billable: input.billable } : {}),
  };
}

export async function insertExpense(
  trx: Transaction<Database>,
  workspaceId: string,
  input: ExpenseUpdateInput & { description: string; expenseDate: string },
): Promise<ExpenseRow> {
  const columns = await resolve(trx, workspaceId, input, {});
  return trx
    .insertInto('expenses')
    .values({
      ...columns,
      id: randomUUID(),
      workspace_id: workspaceId,
      client_id: columns.client_id as string,
      currency: columns.currency as string,
      amount: columns.amount as string,
      description: input.description,
      expense_date: input.expenseDate,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Applies `input` to `current` (found by lockedRecord, src/api/locked-row.ts), checking the rules that span fields. */
export async function updateExpense(
  trx: Transaction<Database>,
  workspaceId: string,
  current: Partial<Record<keyof ExpenseTable, unknown>> & { id: string },
  input: ExpenseUpdateInput,
): Promise<ExpenseRow> {
  const columns = await resolve(trx, workspaceId, input, current);
  return trx
    .updateTable('expenses')
    .set({ ...columns, updated_at: new Date() })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
