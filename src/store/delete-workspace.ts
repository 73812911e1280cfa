import type pg from 'pg';
import { restoreForeignKeyTriggers, skipForeignKeyTriggers } from './foreign-key-triggers.ts';

/**
 * Every table with workspace rows, children before parents. Deleting in this order never
 * trips a foreign key, where one cascading DELETE of the workspace would: PostgreSQL does
 * not order cascades across the composite references between sibling tables.
 */
const CHILDREN_FIRST = [
  'idempotency_keys',
  'team_payment_allocations',
  'team_payments',
  'team_bill_lines',
  'team_bills',
  'payee_credits',
  'payee_rates',
  'payees',
  'invoice_lines',
  'expenses',
  'time_entries',
  'invoices',
  'tasks',
  'project_members',
  'projects',
  'clients',
  'api_tokens',
  'members',
  'users',
  'fx_rates',
];

/**
 * Deletes a workspace and everything in it. Run it inside the caller's transaction.
 * `replacing`: the caller inserts the workspace again before it commits (an import that
 * replaces it), and its webhook endpoints, events and their log stay: they are not part of a
 * snapshot, and their reference to the workspace is checked at commit
 * (sql/postgres/0014_webhooks_outlive_imports.sql).
 *
 * Every reference between these tables stays inside one workspace (each is on
 * `(workspace_id, …)`), and the tables are emptied children first, so no deleted row is
 * still referenced once the loop ends. The per-row reference checks are therefore skipped
 * for the loop: they would look up each deleted task, project or entry in tables that have
 * no index on the referencing columns (a 10M-entry workspace's tasks each scanned the time
 * entries). The workspace row itself is deleted with the triggers back on.
 */
export async function deleteWorkspace(
  client: pg.ClientBase,
  workspaceId: string,
  { replacing = false }: { replacing?: boolean } = {},
): Promise<void> {
  if (!replacing)
    for (const table of ['webhook_events', 'webhook_endpoints'])
      await client.query(`DELETE FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
  const skipped = await skipForeignKeyTriggers(client);
  for (const table of CHILDREN_FIRST)
    await client.query(`DELETE FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
  if (skipped) await restoreForeignKeyTriggers(client);
  await client.query('DELETE FROM workspaces WHERE id = $1', [workspaceId]);
}
