-- Operational store, first version: one table per entity of the workspace snapshot.
--
-- Rules that hold for every table:
-- * Every row carries workspace_id. References between rows are composite foreign keys
--   (workspace_id, x_id) -> (workspace_id, id), so a row can never point into another
--   workspace, whatever the application does.
-- * Money is NUMERIC(18,4): exact, wide enough for every currency's minor unit (0..3) and
--   for rates with four decimals. Whether an amount fits its currency's scale is checked
--   at the edge (import, API writes), where the currency is known.
-- * Enumerations are text with CHECK constraints, so a new value is one migration.

CREATE TABLE workspaces (
  id uuid PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  plan text NOT NULL CHECK (plan IN ('free', 'solo', 'studio', 'agency')),
  base_currency text NOT NULL CHECK (base_currency ~ '^[A-Z]{3}$'),
  timezone text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);

-- Users are scoped to a workspace: a snapshot brings its own people, and replacing one
-- workspace must never touch another's.
CREATE TABLE users (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  name text NOT NULL,
  email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE members (
  workspace_id uuid NOT NULL,
  user_id uuid NOT NULL,
  role text NOT NULL CHECK (role IN ('MEMBER', 'MANAGER', 'ADMIN', 'OWNER')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (workspace_id, user_id),
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id) ON DELETE CASCADE
);

-- Personal access tokens: tt_<env>_<prefix12>_<secret32>. Only SHA-256 of the secret is kept.
CREATE TABLE api_tokens (
  prefix text PRIMARY KEY CHECK (prefix ~ '^[0-9A-Za-z]{12}$'),
  workspace_id uuid NOT NULL,
  user_id uuid NOT NULL,
  env text NOT NULL CHECK (env IN ('live', 'test')),
  secret_sha256 bytea NOT NULL CHECK (length(secret_sha256) = 32),
  scopes text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write']::text[] AND cardinality(scopes) > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  FOREIGN KEY (workspace_id, user_id) REFERENCES members (workspace_id, user_id) ON DELETE CASCADE
);
CREATE INDEX api_tokens_workspace_idx ON api_tokens (workspace_id);

CREATE TABLE clients (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  contact_name text,
  email text,
  phone text,
  website text,
  notes text,
  tax_number text,
  billing_email text,
  currency text CHECK (currency ~ '^[A-Z]{3}$'),
  billing_address text,
  billing_line1 text,
  billing_line2 text,
  billing_city text,
  billing_region text,
  billing_postal_code text,
  billing_country text,
  default_rate numeric(18, 4) CHECK (default_rate >= 0),
  default_tax_rate numeric(18, 4) CHECK (default_tax_rate >= 0),
  default_payment_terms text,
  require_po_number boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id)
);

CREATE TABLE projects (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  client_id uuid,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description text,
  color text,
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'COMPLETED', 'ARCHIVED')),
  rate_type text NOT NULL DEFAULT 'HOURLY' CHECK (rate_type IN ('HOURLY', 'FIXED', 'NON_BILLABLE')),
  hourly_rate numeric(18, 4) CHECK (hourly_rate >= 0),
  fixed_fee_amount numeric(18, 4) CHECK (fixed_fee_amount >= 0),
  fixed_fee_prior_invoiced_amount numeric(18, 4) CHECK (fixed_fee_prior_invoiced_amount >= 0),
  fixed_fee_billing_initialized_at timestamptz,
  budget_amount numeric(18, 4) CHECK (budget_amount >= 0),
  budget_hours numeric(18, 4) CHECK (budget_hours >= 0),
  start_date date,
  due_date date,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, client_id) REFERENCES clients (workspace_id, id)
);
CREATE INDEX projects_client_idx ON projects (workspace_id, client_id);

CREATE TABLE project_members (
  workspace_id uuid NOT NULL,
  project_id uuid NOT NULL,
  user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX project_members_user_idx ON project_members (workspace_id, user_id);

CREATE TABLE tasks (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  project_id uuid NOT NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  description text,
  status text NOT NULL DEFAULT 'TODO' CHECK (status IN ('TODO', 'IN_PROGRESS', 'DONE')),
  priority text NOT NULL DEFAULT 'LOW' CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH', 'URGENT')),
  billable boolean NOT NULL DEFAULT true,
  estimated_hours numeric(18, 4) CHECK (estimated_hours >= 0),
  assignee_ids uuid[] NOT NULL DEFAULT '{}',
  tags text[] NOT NULL DEFAULT '{}',
  start_date date,
  due_date date,
  end_date date,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id)
);
CREATE INDEX tasks_project_idx ON tasks (workspace_id, project_id);

CREATE TABLE invoices (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  client_id uuid NOT NULL,
  number text NOT NULL,
  status text NOT NULL CHECK (status IN ('DRAFT', 'SENT', 'PAID', 'CANCELLED')),
  payment_status text NOT NULL CHECK (payment_status IN ('unpaid', 'partially_paid', 'paid', 'refunded')),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  issue_date date,
  due_date date,
  subtotal numeric(18, 4) NOT NULL,
  discount_amount numeric(18, 4) NOT NULL DEFAULT 0 CHECK (discount_amount >= 0),
  tax_rate numeric(18, 4) CHECK (tax_rate >= 0),
  total numeric(18, 4) NOT NULL,
  amount_paid numeric(18, 4) NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
  po_number text,
  recurring boolean NOT NULL DEFAULT false,
  viewed boolean NOT NULL DEFAULT false,
  bill_to_name text,
  notes text,
  sent_at timestamptz,
  paid_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, client_id) REFERENCES clients (workspace_id, id)
);
CREATE INDEX invoices_client_idx ON invoices (workspace_id, client_id);

CREATE TABLE time_entries (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  project_id uuid NOT NULL,
  task_id uuid,
  invoice_id uuid,
  entry_date date NOT NULL,
  duration_seconds integer NOT NULL CHECK (duration_seconds >= 0),
  billable boolean NOT NULL DEFAULT true,
  is_running boolean NOT NULL DEFAULT false,
  started_at timestamptz,
  stopped_at timestamptz,
  note text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  CHECK (stopped_at IS NULL OR started_at IS NULL OR stopped_at >= started_at),
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id),
  FOREIGN KEY (workspace_id, task_id) REFERENCES tasks (workspace_id, id),
  FOREIGN KEY (workspace_id, invoice_id) REFERENCES invoices (workspace_id, id)
);
CREATE INDEX time_entries_user_date_idx ON time_entries (workspace_id, user_id, entry_date);
CREATE INDEX time_entries_project_idx ON time_entries (workspace_id, project_id);

CREATE TABLE expenses (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  client_id uuid NOT NULL,
  project_id uuid,
  invoice_id uuid,
  category text NOT NULL DEFAULT 'OTHER' CHECK (category IN ('TRAVEL', 'MEALS', 'LODGING', 'SOFTWARE', 'EQUIPMENT', 'SUBCONTRACTOR', 'OTHER')),
  custom_category text CHECK (custom_category IS NULL OR category = 'OTHER'),
  description text NOT NULL,
  amount numeric(18, 4) NOT NULL CHECK (amount > 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  billable boolean NOT NULL DEFAULT true,
  expense_date date NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, client_id) REFERENCES clients (workspace_id, id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id),
  FOREIGN KEY (workspace_id, invoice_id) REFERENCES invoices (workspace_id, id)
);

CREATE TABLE invoice_lines (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  invoice_id uuid NOT NULL,
  position integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('TIME', 'EXPENSE', 'FIXED_FEE', 'OTHER')),
  time_entry_id uuid,
  expense_id uuid,
  project_id uuid,
  description text,
  subtitle text,
  detail text,
  group_label text,
  quantity numeric(18, 4),
  unit_price numeric(18, 4),
  amount numeric(18, 4) NOT NULL,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, invoice_id) REFERENCES invoices (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, time_entry_id) REFERENCES time_entries (workspace_id, id),
  FOREIGN KEY (workspace_id, expense_id) REFERENCES expenses (workspace_id, id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id)
);
CREATE INDEX invoice_lines_invoice_idx ON invoice_lines (workspace_id, invoice_id);
CREATE INDEX invoice_lines_time_entry_idx ON invoice_lines (workspace_id, time_entry_id);

CREATE TABLE payees (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  name text NOT NULL,
  email text,
  start_date date,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, user_id) REFERENCES users (workspace_id, id)
);
-- One live payee per user: decisions 7 joins entries to payees on userId.
CREATE UNIQUE INDEX payees_user_idx ON payees (workspace_id, user_id) WHERE deleted_at IS NULL;

CREATE TABLE payee_rates (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  payee_id uuid NOT NULL,
  effective_from date NOT NULL,
  hourly_rate numeric(18, 4) NOT NULL CHECK (hourly_rate >= 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, payee_id) REFERENCES payees (workspace_id, id) ON DELETE CASCADE
);
-- "The rate with the latest effectiveFrom" must name one rate.
CREATE UNIQUE INDEX payee_rates_effective_idx ON payee_rates (payee_id, effective_from) WHERE deleted_at IS NULL;

CREATE TABLE payee_credits (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  payee_id uuid NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount numeric(18, 4) NOT NULL CHECK (amount >= 0),
  remaining numeric(18, 4) NOT NULL CHECK (remaining >= 0 AND remaining <= amount),
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, payee_id) REFERENCES payees (workspace_id, id) ON DELETE CASCADE
);

CREATE TABLE team_bills (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  payee_id uuid NOT NULL,
  number text NOT NULL,
  status text NOT NULL CHECK (status IN ('DRAFT', 'APPROVED', 'VOID')),
  revision integer NOT NULL DEFAULT 1 CHECK (revision >= 1),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  service_from date,
  service_to date,
  issue_date date,
  due_date date,
  approved_at timestamptz,
  note text,
  void_reason text,
  line_group_by text,
  show_project_name boolean NOT NULL DEFAULT true,
  show_task_name boolean NOT NULL DEFAULT false,
  payee_snapshot jsonb,
  agency_snapshot jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  CHECK (service_to IS NULL OR service_from IS NULL OR service_to >= service_from),
  FOREIGN KEY (workspace_id, payee_id) REFERENCES payees (workspace_id, id)
);
CREATE INDEX team_bills_payee_idx ON team_bills (workspace_id, payee_id);

CREATE TABLE team_bill_lines (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  bill_id uuid NOT NULL,
  position integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('TIME', 'EXPENSE', 'ADJUSTMENT')),
  time_entry_id uuid,
  project_id uuid,
  task_id uuid,
  work_date date,
  duration_seconds integer CHECK (duration_seconds >= 0),
  hourly_rate numeric(18, 4),
  quantity numeric(18, 4),
  unit_price numeric(18, 4),
  amount numeric(18, 4) NOT NULL,
  description text,
  source_snapshot jsonb,
  UNIQUE (workspace_id, id),
  CHECK (kind <> 'TIME' OR time_entry_id IS NOT NULL),
  FOREIGN KEY (workspace_id, bill_id) REFERENCES team_bills (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, time_entry_id) REFERENCES time_entries (workspace_id, id),
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id),
  FOREIGN KEY (workspace_id, task_id) REFERENCES tasks (workspace_id, id)
);
CREATE INDEX team_bill_lines_bill_idx ON team_bill_lines (workspace_id, bill_id);
CREATE INDEX team_bill_lines_time_entry_idx ON team_bill_lines (workspace_id, time_entry_id);

CREATE TABLE team_payments (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  payee_id uuid NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount numeric(18, 4) NOT NULL CHECK (amount > 0),
  paid_date date NOT NULL,
  method text NOT NULL CHECK (method IN ('BANK_TRANSFER', 'WISE', 'PAYPAL', 'CHECK', 'CASH', 'OTHER')),
  saved_method_id uuid,
  reference text,
  note text,
  status text NOT NULL CHECK (status IN ('RECORDED', 'REVERSED')),
  reversed_at timestamptz,
  reversal_reason text,
  settlement_currency text CHECK (settlement_currency ~ '^[A-Z]{3}$'),
  settlement_amount numeric(18, 4),
  exchange_rate numeric(18, 10),
  settlement_mode text NOT NULL DEFAULT 'SAME_CURRENCY' CHECK (settlement_mode IN ('SAME_CURRENCY', 'CONVERTED')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  CHECK ((status = 'REVERSED') = (reversed_at IS NOT NULL)),
  FOREIGN KEY (workspace_id, payee_id) REFERENCES payees (workspace_id, id)
);
CREATE INDEX team_payments_payee_idx ON team_payments (workspace_id, payee_id);

CREATE TABLE team_payment_allocations (
  workspace_id uuid NOT NULL,
  payment_id uuid NOT NULL,
  bill_id uuid NOT NULL,
  position integer NOT NULL,
  amount numeric(18, 4) NOT NULL CHECK (amount > 0),
  cash_amount numeric(18, 4),
  cash_currency text CHECK (cash_currency ~ '^[A-Z]{3}$'),
  PRIMARY KEY (payment_id, bill_id),
  FOREIGN KEY (workspace_id, payment_id) REFERENCES team_payments (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, bill_id) REFERENCES team_bills (workspace_id, id)
);
CREATE INDEX team_payment_allocations_bill_idx ON team_payment_allocations (workspace_id, bill_id);

CREATE TABLE fx_rates (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  from_currency text NOT NULL CHECK (from_currency ~ '^[A-Z]{3}$'),
  to_currency text NOT NULL CHECK (to_currency ~ '^[A-Z]{3}$' AND to_currency <> from_currency),
  effective_from date NOT NULL,
  rate numeric(18, 10) NOT NULL CHECK (rate > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (workspace_id, id),
  UNIQUE (workspace_id, from_currency, to_currency, effective_from)
);

-- Idempotent replay of POSTs (decisions 6): scoped to workspace and token, kept 24 hours.
CREATE TABLE idempotency_keys (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  token_prefix text NOT NULL REFERENCES api_tokens (prefix) ON DELETE CASCADE,
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  method text NOT NULL,
  path text NOT NULL,
  body_sha256 bytea NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  response_status integer,
  response_headers jsonb,
  response_body bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL DEFAULT now() + interval '24 hours',
  PRIMARY KEY (workspace_id, token_prefix, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);
