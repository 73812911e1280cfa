import type { Collection } from './records.ts';

/**
 * How each snapshot record maps onto operational-store columns: one list serves import
 * (record -> COPY row) and export (row -> record), so the two directions cannot drift.
 */
export type ColumnKind =
  | 'uuid'
  | 'text'
  | 'int'
  | 'bool'
  | 'date'
  | 'timestamp'
  /** Money in a currency: exported with that currency's scale. */
  | 'money'
  /** A rate: exported with at least the currency's scale, more when it has more decimals. */
  | 'rate'
  /** A plain decimal (tax rate, hours, quantity, FX rate): exported without trailing zeros. */
  | 'decimal'
  | 'uuid[]'
  | 'text[]'
  | 'json';

export interface ColumnSpec {
  column: string;
  /** Field of the snapshot record; absent for columns the importer fills (keys, positions). */
  field?: string;
  kind: ColumnKind;
  /** For money and rates: the column (of the export query) that holds the currency. */
  currency?: string;
}

export interface TableSpec {
  table: string;
  columns: ColumnSpec[];
}

const col = (
  column: string,
  kind: ColumnKind,
  field = camel(column),
  currency?: string,
): ColumnSpec =>
  currency === undefined ? { column, field, kind } : { column, field, kind, currency };
const key = (column: string): ColumnSpec => ({ column, kind: 'uuid' });
const position: ColumnSpec = { column: 'position', kind: 'int' };
const audit = [
  col('created_at', 'timestamp'),
  col('updated_at', 'timestamp'),
  col('deleted_at', 'timestamp'),
];

export const TABLES = {
  users: {
    table: 'users',
    columns: [
      key('workspace_id'),
      col('id', 'uuid'),
      col('name', 'text'),
      col('email', 'text'),
      ...audit,
    ],
  },
  members: {
    table: 'members',
    columns: [
      key('workspace_id'),
      col('user_id', 'uuid'),
      col('role', 'text'),
      col('created_at', 'timestamp'),
      col('updated_at', 'timestamp'),
    ],
  },
  clients: {
    table: 'clients',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      ...[
        'name',
        'contact_name',
        'email',
        'phone',
        'website',
        'notes',
        'tax_number',
        'billing_email',
        'currency',
      ].map((c) => col(c, 'text')),
      ...[
        'billing_address',
        'billing_line1',
        'billing_line2',
        'billing_city',
        'billing_region',
        'billing_postal_code',
        'billing_country',
      ].map((c) => col(c, 'text')),
      col('default_rate', 'rate', undefined, '_currency'),
      col('default_tax_rate', 'decimal'),
      col('default_payment_terms', 'text'),
      col('require_po_number', 'bool'),
      ...audit,
    ],
  },
  projects: {
    table: 'projects',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('client_id', 'uuid'),
      col('name', 'text'),
      col('description', 'text'),
      col('color', 'text'),
      col('status', 'text'),
      col('rate_type', 'text'),
      col('hourly_rate', 'rate', undefined, '_currency'),
      col('fixed_fee_amount', 'money', undefined, '_currency'),
      col('fixed_fee_prior_invoiced_amount', 'money', undefined, '_currency'),
      col('fixed_fee_billing_initialized_at', 'timestamp'),
      col('budget_amount', 'money', undefined, '_currency'),
      col('budget_hours', 'decimal'),
      col('start_date', 'date'),
      col('due_date', 'date'),
      ...audit,
    ],
  },
  project_members: {
    table: 'project_members',
    columns: [key('workspace_id'), key('project_id'), col('user_id', 'uuid')],
  },
  tasks: {
    table: 'tasks',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('project_id', 'uuid'),
      col('name', 'text'),
      col('description', 'text'),
      col('status', 'text'),
      col('priority', 'text'),
      col('billable', 'bool'),
      col('estimated_hours', 'decimal'),
      col('assignee_ids', 'uuid[]'),
      col('tags', 'text[]'),
      col('start_date', 'date'),
      col('due_date', 'date'),
      col('end_date', 'date'),
      ...audit,
    ],
  },
  invoices: {
    table: 'invoices',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('client_id', 'uuid'),
      col('number', 'text'),
      col('status', 'text'),
      col('payment_status', 'text'),
      col('currency', 'text'),
      col('issue_date', 'date'),
      col('due_date', 'date'),
      col('subtotal', 'money', undefined, 'currency'),
      col('discount_amount', 'money', undefined, 'currency'),
      col('tax_rate', 'decimal'),
      col('total', 'money', undefined, 'currency'),
      col('amount_paid', 'money', undefined, 'currency'),
      col('po_number', 'text'),
      col('recurring', 'bool'),
      col('viewed', 'bool'),
      col('bill_to_name', 'text'),
      col('notes', 'text'),
      col('sent_at', 'timestamp'),
      col('paid_at', 'timestamp'),
      ...audit,
    ],
  },
  invoice_lines: {
    table: 'invoice_lines',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      key('invoice_id'),
      position,
      col('kind', 'text'),
      col('time_entry_id', 'uuid'),
      col('expense_id', 'uuid'),
      col('project_id', 'uuid'),
      col('description', 'text'),
      col('subtitle', 'text'),
      col('detail', 'text'),
      col('group_label', 'text'),
      col('quantity', 'decimal'),
      col('unit_price', 'rate', undefined, '_currency'),
      col('amount', 'money', undefined, '_currency'),
    ],
  },
  time_entries: {
    table: 'time_entries',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('user_id', 'uuid'),
      col('project_id', 'uuid'),
      col('task_id', 'uuid'),
      col('invoice_id', 'uuid'),
      col('entry_date', 'date'),
      col('duration_seconds', 'int'),
      col('billable', 'bool'),
      col('is_running', 'bool'),
      col('started_at', 'timestamp'),
      col('stopped_at', 'timestamp'),
      col('note', 'text'),
      ...audit,
    ],
  },
  expenses: {
    table: 'expenses',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('client_id', 'uuid'),
      col('project_id', 'uuid'),
      col('invoice_id', 'uuid'),
      col('category', 'text'),
      col('custom_category', 'text'),
      col('description', 'text'),
      col('amount', 'money', undefined, 'currency'),
      col('currency', 'text'),
      col('billable', 'bool'),
      col('expense_date', 'date'),
      ...audit,
    ],
  },
  payees: {
    table: 'payees',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('user_id', 'uuid'),
      col('name', 'text'),
      col('email', 'text'),
      col('start_date', 'date'),
      ...audit,
    ],
  },
  payee_rates: {
    table: 'payee_rates',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      key('payee_id'),
      col('effective_from', 'date'),
      col('hourly_rate', 'rate', undefined, 'currency'),
      col('currency', 'text'),
      col('created_at', 'timestamp'),
    ],
  },
  payee_credits: {
    table: 'payee_credits',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      key('payee_id'),
      col('currency', 'text'),
      col('amount', 'money', undefined, 'currency'),
      col('remaining', 'money', undefined, 'currency'),
      col('reason', 'text'),
      col('created_at', 'timestamp'),
    ],
  },
  team_bills: {
    table: 'team_bills',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('payee_id', 'uuid'),
      col('number', 'text'),
      col('status', 'text'),
      col('revision', 'int'),
      col('currency', 'text'),
      col('service_from', 'date'),
      col('service_to', 'date'),
      col('issue_date', 'date'),
      col('due_date', 'date'),
      col('approved_at', 'timestamp'),
      col('note', 'text'),
      col('void_reason', 'text'),
      col('line_group_by', 'text'),
      col('show_project_name', 'bool'),
      col('show_task_name', 'bool'),
      col('payee_snapshot', 'json'),
      col('agency_snapshot', 'json'),
      ...audit,
    ],
  },
  team_bill_lines: {
    table: 'team_bill_lines',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      key('bill_id'),
      position,
      col('kind', 'text'),
      col('time_entry_id', 'uuid'),
      col('project_id', 'uuid'),
      col('task_id', 'uuid'),
      col('work_date', 'date'),
      col('duration_seconds', 'int'),
      col('hourly_rate', 'rate', undefined, '_currency'),
      col('quantity', 'decimal'),
      col('unit_price', 'rate', undefined, '_currency'),
      col('amount', 'money', undefined, '_currency'),
      col('description', 'text'),
      col('source_snapshot', 'json'),
    ],
  },
  team_payments: {
    table: 'team_payments',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('payee_id', 'uuid'),
      col('currency', 'text'),
      col('amount', 'money', undefined, 'currency'),
      col('paid_date', 'date'),
      col('method', 'text'),
      col('saved_method_id', 'uuid'),
      col('reference', 'text'),
      col('note', 'text'),
      col('status', 'text'),
      col('reversed_at', 'timestamp'),
      col('reversal_reason', 'text'),
      col('settlement_currency', 'text'),
      col('settlement_amount', 'money', undefined, 'settlement_currency'),
      col('exchange_rate', 'decimal'),
      col('settlement_mode', 'text'),
      ...audit,
    ],
  },
  team_payment_allocations: {
    table: 'team_payment_allocations',
    columns: [
      key('workspace_id'),
      key('payment_id'),
      col('bill_id', 'uuid'),
      position,
      col('amount', 'money', undefined, '_currency'),
      col('cash_amount', 'money', undefined, 'cash_currency'),
      col('cash_currency', 'text'),
    ],
  },
  fx_rates: {
    table: 'fx_rates',
    columns: [
      col('id', 'uuid'),
      key('workspace_id'),
      col('from_currency', 'text'),
      col('to_currency', 'text'),
      col('effective_from', 'date'),
      col('rate', 'decimal'),
      ...audit,
    ],
  },
} satisfies Record<string, TableSpec>;

export type TableName = keyof typeof TABLES;

/** Insert order: every table after the tables it references. */
export const INSERT_ORDER: TableName[] = [
  'users',
  'members',
  'clients',
  'projects',
  'project_members',
  'tasks',
  'invoices',
  'time_entries',
  'expenses',
  'invoice_lines',
  'payees',
  'payee_rates',
  'payee_credits',
  'team_bills',
  'team_bill_lines',
  'team_payments',
  'team_payment_allocations',
  'fx_rates',
];

/** Which table a top-level collection of the snapshot fills. */
export const TABLE_OF_COLLECTION: Record<Exclude<Collection, 'tokens'>, TableName> = {
  users: 'users',
  members: 'members',
  clients: 'clients',
  projects: 'projects',
  tasks: 'tasks',
  timeEntries: 'time_entries',
  expenses: 'expenses',
  invoices: 'invoices',
  payees: 'payees',
  bills: 'team_bills',
  payments: 'team_payments',
  fxRates: 'fx_rates',
};

function camel(column: string): string {
  return column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
