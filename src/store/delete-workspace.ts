import type pg from 'pg';

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

/** Deletes a workspace and everything in it. Run it inside the caller's transaction. */
export async function deleteWorkspace(client: pg.ClientBase, workspaceId: string): Promise<void> {
  for (const table of CHILDREN_FIRST)
    await client.query(`DELETE FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
  await client.query('DELETE FROM workspaces WHERE id = $1', [workspaceId]);
}
