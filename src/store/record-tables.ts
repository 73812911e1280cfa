import type { ColumnType, Selectable } from 'kysely';

// Kysely types of the operational tables the API writes (sql/postgres/0001_initial.sql).
// NUMERIC arrives and leaves as decimal text, DATE as 'YYYY-MM-DD' text (src/store/database.ts).

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
type Decimal = string;

export interface ClientTable {
  id: string;
  workspace_id: string;
  name: string;
  contact_name: string | null;
  email: string | null;
  phone: string | null;
  website: string | null;
  notes: string | null;
  tax_number: string | null;
  billing_email: string | null;
  currency: string | null;
  billing_address: string | null;
  billing_line1: string | null;
  billing_line2: string | null;
  billing_city: string | null;
  billing_region: string | null;
  billing_postal_code: string | null;
  billing_country: string | null;
  default_rate: Decimal | null;
  default_tax_rate: Decimal | null;
  default_payment_terms: string | null;
  require_po_number: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface ProjectTable {
  id: string;
  workspace_id: string;
  client_id: string | null;
  name: string;
  status: string;
  rate_type: string;
  deleted_at: NullableTimestamp;
}

export interface ProjectMemberTable {
  workspace_id: string;
  project_id: string;
  user_id: string;
}

export interface TaskTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  description: string | null;
  status: ColumnType<string, string | undefined, string>;
  priority: ColumnType<string, string | undefined, string>;
  billable: ColumnType<boolean, boolean | undefined, boolean>;
  estimated_hours: Decimal | null;
  assignee_ids: ColumnType<string[], string[] | undefined, string[]>;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  start_date: string | null;
  due_date: string | null;
  end_date: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface TimeEntryTable {
  id: string;
  workspace_id: string;
  user_id: string;
  project_id: string;
  task_id: string | null;
  invoice_id: string | null;
  entry_date: string;
  duration_seconds: number;
  billable: ColumnType<boolean, boolean | undefined, boolean>;
  is_running: ColumnType<boolean, boolean | undefined, boolean>;
  started_at: NullableTimestamp;
  stopped_at: NullableTimestamp;
  note: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}
export type TimeEntryRow = Selectable<TimeEntryTable>;

export interface ExpenseTable {
  id: string;
  workspace_id: string;
  client_id: string;
  project_id: string | null;
  invoice_id: string | null;
  category: ColumnType<string, string | undefined, string>;
  custom_category: string | null;
  description: string;
  amount: Decimal;
  currency: string;
  billable: ColumnType<boolean, boolean | undefined, boolean>;
  expense_date: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface InvoiceTable {
  id: string;
  workspace_id: string;
  status: string;
  deleted_at: NullableTimestamp;
}

export interface InvoiceLineTable {
  id: string;
  workspace_id: string;
  invoice_id: string;
  time_entry_id: string | null;
}

export interface TeamBillTable {
  id: string;
  workspace_id: string;
  status: string;
  deleted_at: NullableTimestamp;
}

export interface TeamBillLineTable {
  id: string;
  workspace_id: string;
  bill_id: string;
  time_entry_id: string | null;
}

/** The API's tables, merged into the Database of src/store/schema.ts. */
export interface RecordTables {
  clients: ClientTable;
  projects: ProjectTable;
  project_members: ProjectMemberTable;
  tasks: TaskTable;
  time_entries: TimeEntryTable;
  expenses: ExpenseTable;
  invoices: InvoiceTable;
  invoice_lines: InvoiceLineTable;
  team_bills: TeamBillTable;
  team_bill_lines: TeamBillLineTable;
}
