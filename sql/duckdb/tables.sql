-- Read model tables: one per operational table, same names, same columns, same order.
-- The sync copies rows here column by column (src/sync/), so a column added to
-- sql/postgres/ must be added here too (test/sync/full-sync.test.ts compares them). A copied table
-- may end with columns the read model derives itself, never copied (DERIVED_COLUMNS in
-- src/search/client-names.ts).
--
-- No PRIMARY KEY constraints: DuckDB's ART indexes slow bulk loads and cost memory on
-- tens of millions of rows. Each table's key (named in the comment above it) is what the
-- incremental sync matches changes on; it stays unique because PostgreSQL enforces it.
-- API tokens and idempotency keys are operational only and not copied.

-- key: id
CREATE TABLE IF NOT EXISTS workspaces (
  id UUID NOT NULL,
  name VARCHAR NOT NULL,
  plan VARCHAR NOT NULL,
  base_currency VARCHAR NOT NULL,
  timezone VARCHAR NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: workspace_id, id
CREATE TABLE IF NOT EXISTS users (
  workspace_id UUID NOT NULL,
  id UUID NOT NULL,
  name VARCHAR NOT NULL,
  email VARCHAR,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: workspace_id, user_id
CREATE TABLE IF NOT EXISTS members (
  workspace_id UUID NOT NULL,
  user_id UUID NOT NULL,
  role VARCHAR NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS clients (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  name VARCHAR NOT NULL,
  contact_name VARCHAR,
  email VARCHAR,
  phone VARCHAR,
  website VARCHAR,
  notes VARCHAR,
  tax_number VARCHAR,
  billing_email VARCHAR,
  currency VARCHAR,
  billing_address VARCHAR,
  billing_line1 VARCHAR,
  billing_line2 VARCHAR,
  billing_city VARCHAR,
  billing_region VARCHAR,
  billing_postal_code VARCHAR,
  billing_country VARCHAR,
  default_rate DECIMAL(18,4),
  default_tax_rate DECIMAL(18,4),
  default_payment_terms VARCHAR,
  require_po_number BOOLEAN NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS projects (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  client_id UUID,
  name VARCHAR NOT NULL,
  description VARCHAR,
  color VARCHAR,
  status VARCHAR NOT NULL,
  rate_type VARCHAR NOT NULL,
  hourly_rate DECIMAL(18,4),
  fixed_fee_amount DECIMAL(18,4),
  fixed_fee_prior_invoiced_amount DECIMAL(18,4),
  fixed_fee_billing_initialized_at TIMESTAMPTZ,
  budget_amount DECIMAL(18,4),
  budget_hours DECIMAL(18,4),
  start_date DATE,
  due_date DATE,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ,
  -- Derived, not copied (src/search/client-names.ts): lower() of the client's name, which the
  -- clientName filter reads without joining clients. The sync keeps it in the same transaction.
  client_name_lower VARCHAR
);

-- key: project_id, user_id
CREATE TABLE IF NOT EXISTS project_members (
  workspace_id UUID NOT NULL,
  project_id UUID NOT NULL,
  user_id UUID NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);

-- key: id
CREATE TABLE IF NOT EXISTS tasks (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  project_id UUID NOT NULL,
  name VARCHAR NOT NULL,
  description VARCHAR,
  status VARCHAR NOT NULL,
  priority VARCHAR NOT NULL,
  billable BOOLEAN NOT NULL,
  estimated_hours DECIMAL(18,4),
  assignee_ids UUID[] NOT NULL,
  tags VARCHAR[] NOT NULL,
  start_date DATE,
  due_date DATE,
  end_date DATE,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS invoices (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  client_id UUID NOT NULL,
  number VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  payment_status VARCHAR NOT NULL,
  currency VARCHAR NOT NULL,
  issue_date DATE,
  due_date DATE,
  subtotal DECIMAL(18,4) NOT NULL,
  discount_amount DECIMAL(18,4) NOT NULL,
  tax_rate DECIMAL(18,4),
  total DECIMAL(18,4) NOT NULL,
  amount_paid DECIMAL(18,4) NOT NULL,
  po_number VARCHAR,
  recurring BOOLEAN NOT NULL,
  viewed BOOLEAN NOT NULL,
  bill_to_name VARCHAR,
  notes VARCHAR,
  sent_at TIMESTAMPTZ,
  paid_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ,
  -- Derived, not copied (src/search/client-names.ts): lower() of the client's name, which the
  -- clientName filter reads without joining clients. The sync keeps it in the same transaction.
  client_name_lower VARCHAR
);

-- key: id
CREATE TABLE IF NOT EXISTS time_entries (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  user_id UUID NOT NULL,
  project_id UUID NOT NULL,
  task_id UUID,
  invoice_id UUID,
  entry_date DATE NOT NULL,
  duration_seconds INTEGER NOT NULL,
  billable BOOLEAN NOT NULL,
  is_running BOOLEAN NOT NULL,
  started_at TIMESTAMPTZ,
  stopped_at TIMESTAMPTZ,
  note VARCHAR,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS expenses (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  client_id UUID NOT NULL,
  project_id UUID,
  invoice_id UUID,
  category VARCHAR NOT NULL,
  custom_category VARCHAR,
  description VARCHAR NOT NULL,
  amount DECIMAL(18,4) NOT NULL,
  currency VARCHAR NOT NULL,
  billable BOOLEAN NOT NULL,
  expense_date DATE NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS invoice_lines (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  invoice_id UUID NOT NULL,
  position INTEGER NOT NULL,
  kind VARCHAR NOT NULL,
  time_entry_id UUID,
  expense_id UUID,
  project_id UUID,
  description VARCHAR,
  subtitle VARCHAR,
  detail VARCHAR,
  group_label VARCHAR,
  quantity DECIMAL(18,4),
  unit_price DECIMAL(18,4),
  amount DECIMAL(18,4) NOT NULL
);

-- key: id
CREATE TABLE IF NOT EXISTS payees (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  user_id UUID NOT NULL,
  name VARCHAR NOT NULL,
  email VARCHAR,
  start_date DATE,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS payee_rates (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  payee_id UUID NOT NULL,
  effective_from DATE NOT NULL,
  hourly_rate DECIMAL(18,4) NOT NULL,
  currency VARCHAR NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS payee_credits (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  payee_id UUID NOT NULL,
  currency VARCHAR NOT NULL,
  amount DECIMAL(18,4) NOT NULL,
  remaining DECIMAL(18,4) NOT NULL,
  reason VARCHAR,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS team_bills (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  payee_id UUID NOT NULL,
  number VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  revision INTEGER NOT NULL,
  currency VARCHAR NOT NULL,
  service_from DATE,
  service_to DATE,
  issue_date DATE,
  due_date DATE,
  approved_at TIMESTAMPTZ,
  note VARCHAR,
  void_reason VARCHAR,
  line_group_by VARCHAR,
  show_project_name BOOLEAN NOT NULL,
  show_task_name BOOLEAN NOT NULL,
  payee_snapshot JSON,
  agency_snapshot JSON,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: id
CREATE TABLE IF NOT EXISTS team_bill_lines (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  bill_id UUID NOT NULL,
  position INTEGER NOT NULL,
  kind VARCHAR NOT NULL,
  time_entry_id UUID,
  project_id UUID,
  task_id UUID,
  work_date DATE,
  duration_seconds INTEGER,
  hourly_rate DECIMAL(18,4),
  quantity DECIMAL(18,4),
  unit_price DECIMAL(18,4),
  amount DECIMAL(18,4) NOT NULL,
  description VARCHAR,
  source_snapshot JSON
);

-- key: id
CREATE TABLE IF NOT EXISTS team_payments (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  payee_id UUID NOT NULL,
  currency VARCHAR NOT NULL,
  amount DECIMAL(18,4) NOT NULL,
  paid_date DATE NOT NULL,
  method VARCHAR NOT NULL,
  saved_method_id UUID,
  reference VARCHAR,
  note VARCHAR,
  status VARCHAR NOT NULL,
  reversed_at TIMESTAMPTZ,
  reversal_reason VARCHAR,
  settlement_currency VARCHAR,
  settlement_amount DECIMAL(18,4),
  exchange_rate DECIMAL(18,10),
  settlement_mode VARCHAR NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- key: payment_id, bill_id
CREATE TABLE IF NOT EXISTS team_payment_allocations (
  workspace_id UUID NOT NULL,
  payment_id UUID NOT NULL,
  bill_id UUID NOT NULL,
  position INTEGER NOT NULL,
  amount DECIMAL(18,4) NOT NULL,
  cash_amount DECIMAL(18,4),
  cash_currency VARCHAR
);

-- key: id
CREATE TABLE IF NOT EXISTS fx_rates (
  id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  from_currency VARCHAR NOT NULL,
  to_currency VARCHAR NOT NULL,
  effective_from DATE NOT NULL,
  rate DECIMAL(18,10) NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ
);

-- Where the read model stands: one row. Written in the same DuckDB transaction as the rows
-- it covers, so a reader never sees rows without their position or the reverse.
-- source_lsn: every change committed at or before it is applied (logical replication);
-- slot_name: the replication slot this read model follows (NULL after a plain copy);
-- source_snapshot: the PostgreSQL snapshot (pg_snapshot text) whose committed transactions
-- are all applied (change-log mode).
CREATE TABLE IF NOT EXISTS sync_state (
  id INTEGER NOT NULL,
  source_system_id VARCHAR NOT NULL,
  data_as_of TIMESTAMPTZ NOT NULL,
  source_lsn VARCHAR,
  slot_name VARCHAR,
  source_snapshot VARCHAR,
  synced_at TIMESTAMPTZ NOT NULL,
  full_loads INTEGER NOT NULL,
  rows_loaded BIGINT NOT NULL
);

-- Replication slots a first load created and had not yet recorded in sync_state: after a
-- crash mid-load, the next start drops them so they do not hold WAL forever.
CREATE TABLE IF NOT EXISTS sync_pending_slots (
  slot_name VARCHAR NOT NULL
);

-- ISO 4217 minor units, filled from src/money/currencies.ts when the read model opens,
-- so DuckDB and TypeScript round to the same scale.
CREATE TABLE IF NOT EXISTS currencies (
  code VARCHAR NOT NULL,
  scale INTEGER NOT NULL
);
