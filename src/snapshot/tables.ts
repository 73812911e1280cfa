import type { Entity, ValueKind } from '../entities/entity.ts';
import { allocationEntity } from '../entities/allocation.entity.ts';
import { billLineEntity } from '../entities/bill-line.entity.ts';
import { billEntity } from '../entities/bill.entity.ts';
import { clientEntity } from '../entities/client.entity.ts';
import { expenseEntity } from '../entities/expense.entity.ts';
import { fxRateEntity } from '../entities/fx-rate.entity.ts';
import { invoiceLineEntity } from '../entities/invoice-line.entity.ts';
import { invoiceEntity } from '../entities/invoice.entity.ts';
import { payeeCreditEntity, payeeEntity, payeeRateEntity } from '../entities/payee.entity.ts';
import { paymentEntity } from '../entities/payment.entity.ts';
import { projectEntity } from '../entities/project.entity.ts';
import { taskEntity } from '../entities/task.entity.ts';
import { timeEntryEntity } from '../entities/time-entry.entity.ts';
import { memberEntity, userEntity } from '../entities/user.entity.ts';
import type { Collection } from './records.ts';

/**
 * How each snapshot record maps onto operational-store columns: one list serves import
 * (record -> COPY row) and export (row -> record), so the two directions cannot drift. Each
 * list derives from its entity's declaration (src/entities/), which also gives the API record.
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

const KIND: Record<ValueKind, ColumnKind> = {
  uuid: 'uuid',
  text: 'text',
  enum: 'text',
  currency: 'text',
  money: 'money',
  rate: 'rate',
  decimal: 'decimal',
  date: 'date',
  timestamp: 'timestamp',
  boolean: 'bool',
  integer: 'int',
  json: 'json',
  uuids: 'uuid[]',
  texts: 'text[]',
};

/**
 * The columns of an entity's table in its snapshot order (src/entities/). Money and rates are
 * in the currency of their currency field when the table has it, else in `_currency`, which
 * the export query gives (a parent's currency, the workspace's).
 */
function tableOf(table: string, entity: Entity): TableSpec {
  const { columns } = entity.snapshot;
  return {
    table,
    columns: columns.map((c): ColumnSpec => {
      const kind = KIND[c.kind];
      if (c.filled) return { column: c.column, kind };
      if (c.currency === undefined) return { column: c.column, field: c.name, kind };
      const holder = columns.find((h) => h.name === c.currency && !h.filled);
      return { column: c.column, field: c.name, kind, currency: holder?.column ?? '_currency' };
    }),
  };
}

export const TABLES = {
  users: tableOf('users', userEntity),
  members: tableOf('members', memberEntity),
  clients: tableOf('clients', clientEntity),
  projects: tableOf('projects', projectEntity),
  // A project's members: a list of user ids in its snapshot record, a join table in the store.
  project_members: {
    table: 'project_members',
    columns: [
      { column: 'workspace_id', kind: 'uuid' },
      { column: 'project_id', kind: 'uuid' },
      { column: 'user_id', field: 'userId', kind: 'uuid' },
    ],
  },
  tasks: tableOf('tasks', taskEntity),
  invoices: tableOf('invoices', invoiceEntity),
  invoice_lines: tableOf('invoice_lines', invoiceLineEntity),
  time_entries: tableOf('time_entries', timeEntryEntity),
  expenses: tableOf('expenses', expenseEntity),
  payees: tableOf('payees', payeeEntity),
  payee_rates: tableOf('payee_rates', payeeRateEntity),
  payee_credits: tableOf('payee_credits', payeeCreditEntity),
  team_bills: tableOf('team_bills', billEntity),
  team_bill_lines: tableOf('team_bill_lines', billLineEntity),
  team_payments: tableOf('team_payments', paymentEntity),
  team_payment_allocations: tableOf('team_payment_allocations', allocationEntity),
  fx_rates: tableOf('fx_rates', fxRateEntity),
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
