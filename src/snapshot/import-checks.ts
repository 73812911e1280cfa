/**
 * Rules of a snapshot that span records, checked with SQL over the staging tables of an
 * import (`stage_<table>`, shaped like the real tables) before anything is written. Each
 * query returns the `id` of every offending record, and a `message` where one query checks
 * two rules of a field (one pass over millions of rows instead of two) and the row breaks
 * the other one; `$1` is the imported workspace's id, and `stage_workspace` holds its record.
 * The per-record rules (formats, enums, scales in the record's own currency) are the zod
 * schemas of records.ts.
 */
export interface ImportCheck {
  entity: string;
  field: string;
  message: string;
  sql: string;
}

const ID_TABLES: [entity: string, table: string][] = [
  ['user', 'users'],
  ['client', 'clients'],
  ['project', 'projects'],
  ['task', 'tasks'],
  ['timeEntry', 'time_entries'],
  ['expense', 'expenses'],
  ['invoice', 'invoices'],
  ['invoice.line', 'invoice_lines'],
  ['payee', 'payees'],
  ['payee.rate', 'payee_rates'],
  ['payee.credit', 'payee_credits'],
  ['bill', 'team_bills'],
  ['bill.line', 'team_bill_lines'],
  ['payment', 'team_payments'],
  ['fxRate', 'fx_rates'],
];

const duplicate = (
  entity: string,
  table: string,
  columns: string,
  field = 'id',
  id = 'id',
): ImportCheck => ({
  entity,
  field,
  message: `is not unique in the snapshot`,
  sql: `SELECT min(${id}::text) AS id FROM stage_${table} GROUP BY ${columns} HAVING count(*) > 1`,
});

/** A uuid key is global: the same id in another workspace is a clash, not a reference. */
const takenElsewhere = (entity: string, table: string): ImportCheck => ({
  entity,
  field: 'id',
  message: 'is already used by another workspace',
  sql: `SELECT s.id::text AS id FROM stage_${table} s JOIN ${table} t ON t.id = s.id WHERE t.workspace_id <> $1`,
});

const reference = (
  entity: string,
  table: string,
  column: string,
  field: string,
  target: string,
  targetName: string,
  id = 's.id',
  targetColumn = 'id',
): ImportCheck => ({
  entity,
  field,
  message: `refers to a ${targetName} that is not in the snapshot`,
  sql: `SELECT ${id}::text AS id FROM stage_${table} s
        WHERE s.${column} IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM stage_${target} t WHERE t.${targetColumn} = s.${column})`,
});

/** Money of a record whose currency lives on another record must fit that currency's scale. */
const scaleIn = (
  entity: string,
  field: string,
  from: string,
  amount: string,
  currency: string,
  id: string,
): ImportCheck => ({
  entity,
  field,
  message: 'has more decimals than its currency allows',
  sql: `SELECT ${id}::text AS id FROM ${from}
        JOIN stage_currency_scales cs ON cs.code = ${currency}
        WHERE ${amount} IS NOT NULL AND ${amount} <> round(${amount}, cs.scale)`,
});

const CLIENT_CURRENCY = `coalesce(c.currency, (SELECT base_currency FROM stage_workspace))`;

/**
 * Uniqueness the schema's unique constraints enforce exactly: primary keys (ids are global,
 * so an id of another workspace is taken too), members, tokens, project members, FX rates,
 * allocations. Inserting the rows trips the constraint for free, where these queries cost a
 * sort or hash of every staged row (about 23 s for a 10M-entry workspace), so the importer
 * runs them only to name the offenders: when an insert trips a constraint, or when another
 * check failed (a bad file's report is complete either way).
 */
export const UNIQUENESS_CHECKS: ImportCheck[] = [
  ...ID_TABLES.map(([entity, table]) => duplicate(entity, table, 'id')),
  duplicate('member', 'members', 'user_id', 'userId', 'user_id'),
  duplicate('token', 'api_tokens', 'prefix', 'token', 'prefix'),
  duplicate('project', 'project_members', 'project_id, user_id', 'memberIds', 'project_id'),
  duplicate('fxRate', 'fx_rates', 'from_currency, to_currency, effective_from', 'effectiveFrom'),
  duplicate(
    'payment',
    'team_payment_allocations',
    'payment_id, bill_id',
    'allocations.billId',
    'payment_id',
  ),
  ...ID_TABLES.filter(([, table]) => table !== 'users').map(([entity, table]) =>
    takenElsewhere(entity, table),
  ),
  {
    entity: 'token',
    field: 'token',
    message: 'has a prefix already used by another workspace',
    sql: `SELECT s.prefix AS id FROM stage_api_tokens s JOIN api_tokens t ON t.prefix = s.prefix WHERE t.workspace_id <> $1`,
  },
];

/** Every other rule across records, checked before anything is inserted. */
export const IMPORT_CHECKS: ImportCheck[] = [
  // The schema's unique indexes on these hold only for rows not deleted; the snapshot's rule
  // is stricter.
  duplicate('payee', 'payees', 'user_id', 'userId'),
  duplicate('payee.rate', 'payee_rates', 'payee_id, effective_from', 'effectiveFrom'),
  reference('member', 'members', 'user_id', 'userId', 'users', 'user', 's.user_id'),
  reference('token', 'api_tokens', 'user_id', 'userId', 'members', 'member', 's.prefix', 'user_id'),
  reference('project', 'projects', 'client_id', 'clientId', 'clients', 'client'),
  reference('project', 'project_members', 'user_id', 'memberIds', 'users', 'user', 's.project_id'),
  reference('task', 'tasks', 'project_id', 'projectId', 'projects', 'project'),
  {
    entity: 'task',
    field: 'assigneeIds',
    message: 'refers to a user that is not in the snapshot',
    sql: `SELECT s.id::text AS id FROM stage_tasks s, unnest(s.assignee_ids) AS a(user_id)
          WHERE NOT EXISTS (SELECT 1 FROM stage_users u WHERE u.id = a.user_id)`,
  },
  reference('timeEntry', 'time_entries', 'user_id', 'userId', 'users', 'user'),
  reference('timeEntry', 'time_entries', 'project_id', 'projectId', 'projects', 'project'),
  // One pass over the entries for both rules of the task: a task missing, or of another project.
  {
    entity: 'timeEntry',
    field: 'taskId',
    message: 'refers to a task that is not in the snapshot',
    sql: `SELECT s.id::text AS id,
                 CASE WHEN t.id IS NOT NULL THEN 'refers to a task of another project' END AS message
          FROM stage_time_entries s LEFT JOIN stage_tasks t ON t.id = s.task_id
          WHERE s.task_id IS NOT NULL AND (t.id IS NULL OR t.project_id <> s.project_id)`,
  },
  reference('timeEntry', 'time_entries', 'invoice_id', 'invoiceId', 'invoices', 'invoice'),
  {
    entity: 'timeEntry',
    field: 'invoiceId',
    message: 'names an invoice that has no line for this time entry',
    sql: `SELECT s.id::text AS id FROM stage_time_entries s
          WHERE s.invoice_id IS NOT NULL
            AND EXISTS (SELECT 1 FROM stage_invoices i WHERE i.id = s.invoice_id)
            AND NOT EXISTS (SELECT 1 FROM stage_invoice_lines l WHERE l.invoice_id = s.invoice_id AND l.time_entry_id = s.id)`,
  },
  reference('expense', 'expenses', 'client_id', 'clientId', 'clients', 'client'),
  reference('expense', 'expenses', 'project_id', 'projectId', 'projects', 'project'),
  reference('expense', 'expenses', 'invoice_id', 'invoiceId', 'invoices', 'invoice'),
  reference('invoice', 'invoices', 'client_id', 'clientId', 'clients', 'client'),
  reference(
    'invoice.line',
    'invoice_lines',
    'time_entry_id',
    'timeEntryId',
    'time_entries',
    'time entry',
  ),
  reference('invoice.line', 'invoice_lines', 'expense_id', 'expenseId', 'expenses', 'expense'),
  reference('invoice.line', 'invoice_lines', 'project_id', 'projectId', 'projects', 'project'),
  reference('payee', 'payees', 'user_id', 'userId', 'users', 'user'),
  reference('bill', 'team_bills', 'payee_id', 'payeeId', 'payees', 'payee'),
  reference('bill.line', 'team_bill_lines', 'project_id', 'projectId', 'projects', 'project'),
  reference('bill.line', 'team_bill_lines', 'task_id', 'taskId', 'tasks', 'task'),
  // One pass over the lines (a join with millions of entries) for both rules of the entry:
  // missing, or someone else's.
  {
    entity: 'bill.line',
    field: 'timeEntryId',
    message: 'refers to a time entry that is not in the snapshot',
    sql: `SELECT l.id::text AS id,
                 CASE WHEN e.id IS NOT NULL THEN 'refers to a time entry of someone other than the bill''s payee' END AS message
          FROM stage_team_bill_lines l
          LEFT JOIN stage_time_entries e ON e.id = l.time_entry_id
          LEFT JOIN stage_team_bills b ON b.id = l.bill_id
          LEFT JOIN stage_payees p ON p.id = b.payee_id
          WHERE l.time_entry_id IS NOT NULL AND (e.id IS NULL OR e.user_id <> p.user_id)`,
  },
  {
    entity: 'bill.line',
    field: 'timeEntryId',
    message: 'refers to a time entry that is already on a line of another approved bill',
    sql: `SELECT max(l.id::text) AS id FROM stage_team_bill_lines l
          JOIN stage_team_bills b ON b.id = l.bill_id AND b.status = 'APPROVED' AND b.deleted_at IS NULL
          WHERE l.time_entry_id IS NOT NULL
          GROUP BY l.time_entry_id HAVING count(*) > 1`,
  },
  reference('payment', 'team_payments', 'payee_id', 'payeeId', 'payees', 'payee'),
  reference(
    'payment',
    'team_payment_allocations',
    'bill_id',
    'allocations.billId',
    'team_bills',
    'bill',
    's.payment_id',
  ),
  {
    entity: 'payment',
    field: 'allocations.billId',
    message: 'refers to a bill of another payee',
    sql: `SELECT a.payment_id::text AS id FROM stage_team_payment_allocations a
          JOIN stage_team_payments p ON p.id = a.payment_id
          JOIN stage_team_bills b ON b.id = a.bill_id
          WHERE b.payee_id <> p.payee_id`,
  },
  scaleIn(
    'payment',
    'allocations.amount',
    'stage_team_payment_allocations a JOIN stage_team_bills b ON b.id = a.bill_id',
    'a.amount',
    'b.currency',
    'a.payment_id',
  ),
  ...['fixed_fee_amount', 'fixed_fee_prior_invoiced_amount', 'budget_amount'].map((column) =>
    scaleIn(
      'project',
      column.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase()),
      'stage_projects p LEFT JOIN stage_clients c ON c.id = p.client_id',
      `p.${column}`,
      CLIENT_CURRENCY,
      'p.id',
    ),
  ),
];
