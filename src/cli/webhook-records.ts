import type { Caller } from '../api/caller.ts';
import { clientRowToRecord } from '../api/clients/client.record.ts';
import { expenseRowToRecord } from '../api/expenses/expense.record.ts';
import { invoiceRowToRecord } from '../api/invoices/invoice.record.ts';
import { projectRowToRecord } from '../api/projects/project.record.ts';
import { taskRowToRecord } from '../api/tasks/task.record.ts';
import { timeEntryRowToRecord } from '../api/time-entries/time-entry.record.ts';
import { assemblePayee, PAYEE_PARTS_SQL } from '../reports/team-payouts/payees.ts';
import type { WebhookRecordSource } from '../webhooks/events.ts';

/**
 * The records webhook events carry (docs/webhooks.md, "Bodies"), each built by its resource's
 * own row -> record function from the row the transaction left: the record as the API answers
 * it to an Owner, as of that commit.
 */
export const WEBHOOK_RECORDS: readonly WebhookRecordSource[] = [
  {
    table: 'clients',
    kind: 'client',
    render: async (row, { baseCurrency }) => clientRowToRecord(row, baseCurrency),
  },
  {
    table: 'projects',
    kind: 'project',
    render: async (row, { workspaceId, baseCurrency, query }) => {
      // Its amounts are in its client's currency, else the workspace's.
      const [found] = await query<{ currency: string | null }>(
        'SELECT currency FROM clients WHERE workspace_id = $1 AND id = $2',
        [workspaceId, row.client_id],
      );
      const owner = { role: 'OWNER', baseCurrency } as Caller;
      return projectRowToRecord({ ...row, money_currency: found?.currency ?? baseCurrency }, owner);
    },
  },
  { table: 'tasks', kind: 'task', render: async (row) => taskRowToRecord(row) },
  { table: 'time_entries', kind: 'time_entry', render: async (row) => timeEntryRowToRecord(row) },
  { table: 'expenses', kind: 'expense', render: async (row) => expenseRowToRecord(row) },
  { table: 'invoices', kind: 'invoice', render: async (row) => invoiceRowToRecord(row) },
  {
    table: 'payees',
    kind: 'payee',
    render: async (row, { query }) =>
      assemblePayee(
        row,
        await query(PAYEE_PARTS_SQL.rates, [row.id]),
        await query(PAYEE_PARTS_SQL.credits, [row.id]),
      ),
  },
];
