import type { Caller } from '../api/caller.ts';
import { text } from '../api/record-values.ts';
import { clientRowToRecord } from '../api/clients/client.record.ts';
import { expenseRowToRecord } from '../api/expenses/expense.record.ts';
import { invoiceRowToRecord } from '../api/invoices/invoice.record.ts';
import { projectRowToRecord } from '../api/projects/project.record.ts';
import { taskRowToRecord } from '../api/tasks/task.record.ts';
import { timeEntryRowToRecord } from '../api/time-entries/time-entry.record.ts';
import { assembleBill, BILL_STORE_SQL } from '../reports/team-payouts/bills.ts';
import { assemblePayee, PAYEE_PARTS_SQL } from '../reports/team-payouts/payees.ts';
import {
  assemblePayment,
  PAYMENT_STORE_SQL,
  type PaymentRecord,
} from '../reports/team-payouts/payments.ts';
import type { RenderContext, WebhookRecordSource } from '../webhooks/events.ts';
import type { Row } from '../webhooks/change-reader.ts';

/**
 * The records webhook events carry (docs/webhooks.md, "Bodies"), each built by its resource's
 * own row -> record function from the row the transaction left: the record as the API answers
 * it to an Owner, as of that commit. What the row does not hold (a bill's lines and figures, a
 * payee's rates) is read from the store as the event is produced.
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
    parts: [
      { table: 'payee_rates', recordIds: (row) => [text(row.payee_id)] },
      { table: 'payee_credits', recordIds: (row) => [text(row.payee_id)] },
    ],
    render: async (row, { query }) =>
      assemblePayee(
        row,
        await query(PAYEE_PARTS_SQL.rates, [row.id]),
        await query(PAYEE_PARTS_SQL.credits, [row.id]),
      ),
  },
  {
    table: 'team_bills',
    kind: 'team_bill',
    parts: [
      { table: 'team_bill_lines', recordIds: (row) => [text(row.bill_id)] },
      // A payment's allocations and its status make the bill's amount paid.
      { table: 'team_payment_allocations', recordIds: (row) => [text(row.bill_id)] },
      {
        table: 'team_payments',
        recordIds: async (row, query) =>
          (
            await query<{ bill_id: string }>(
              'SELECT bill_id FROM team_payment_allocations WHERE payment_id = $1',
              [row.id],
            )
          ).map((a) => a.bill_id),
      },
    ],
    render: async (row, { workspaceId, plan, query }) => {
      // Drafts are an Agency feature: another plan's API never answers one.
      if (row.status === 'DRAFT' && plan !== 'agency') return undefined;
      const [figures] = await query(BILL_STORE_SQL.figures, [
        row.id,
        workspaceId,
        row.status,
        row.payee_id,
      ]);
      const payments = await paymentsOf(await query(BILL_STORE_SQL.payments, [row.id]), query);
      return assembleBill(
        { ...row, ...figures },
        await query(BILL_STORE_SQL.lines, [row.id]),
        payments,
      );
    },
  },
  {
    table: 'team_payments',
    kind: 'team_payment',
    parts: [{ table: 'team_payment_allocations', recordIds: (row) => [text(row.payment_id)] }],
    render: async (row, { query }) => {
      const [payee] = await query(PAYMENT_STORE_SQL.payee, [row.payee_id]);
      return (await paymentsOf([{ ...row, user_id: payee?.user_id ?? null }], query))[0];
    },
  },
];

/** The records of payments read from the store, with their allocations. */
async function paymentsOf(rows: Row[], query: RenderContext['query']): Promise<PaymentRecord[]> {
  if (rows.length === 0) return [];
  const allocations = await query(PAYMENT_STORE_SQL.allocations, [rows.map((r) => r.id)]);
  return rows.map((row) =>
    assemblePayment(
      row,
      allocations.filter((a) => a.payment_id === row.id),
    ),
  );
}
