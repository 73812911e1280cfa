-- Read model tables: one per operational table, same names, same columns, same order.
-- The sync copies rows here column by column (src/sync/), so a column added to
-- sql/postgres/ must be added here too (test/full-sync.test.ts compares them). A copied table
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

-- Search index (src/search/, docs/search.md): derived from the tables above, not copied from
-- PostgreSQL; rebuilt by a first load and kept up to date by each sync batch in the same DuckDB
-- transaction as the rows it summarises. A full build writes it sorted (word ids follow entity,
-- workspace and word), so a search's filters skip the row groups that cannot match.

-- The entities searched, as an ENUM: a scan's `entity = 'client'` compares a byte, not a text
-- (one vocabulary scan 3.4 ms instead of 4.8, docs/search.md). Kept when the tables are made
-- anew (IF NOT EXISTS): give a changed list a new type name.
CREATE TYPE IF NOT EXISTS search_entity AS ENUM ('client', 'project', 'invoice');

-- One row per distinct word of one entity's records in one workspace and one field class
-- (the primary field, or the others), with the columns the matching filters on.
CREATE TABLE IF NOT EXISTS search_vocabulary (
  word_id BIGINT NOT NULL,
  entity search_entity NOT NULL,
  workspace_id UUID NOT NULL,
  word VARCHAR NOT NULL,
  primary_field BOOLEAN NOT NULL,
  word_length INTEGER NOT NULL,
  ascii_form VARCHAR,
  letters BIGINT NOT NULL,
  head BIGINT NOT NULL,
  tail BIGINT NOT NULL,
  gram2 BIGINT NOT NULL,
  gram3 BIGINT NOT NULL,
  gram4 BIGINT NOT NULL,
  gram5 BIGINT NOT NULL,
  records INTEGER NOT NULL
);

-- Which record holds which word: one row per word id and record. Each carries what a list
-- page of the record's entity is chosen by when a search is its only filter: the record's
-- created_at and whether it is not deleted (live), so that such a page needs no join with the
-- entity's table (docs/search.md, "Pages from the index").
CREATE TABLE IF NOT EXISTS search_postings (
  word_id BIGINT NOT NULL,
  record_id UUID NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  live BOOLEAN NOT NULL
);

-- The word ids of each record, to find its postings when the record changes, and the
-- created_at and live its postings carry.
CREATE TABLE IF NOT EXISTS search_documents (
  entity search_entity NOT NULL,
  workspace_id UUID NOT NULL,
  record_id UUID NOT NULL,
  word_ids BIGINT[] NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  live BOOLEAN NOT NULL
);

-- The records a sync batch refreshes (workspace_id NULL for a record already deleted);
-- filled and emptied inside that batch's transaction.
CREATE TABLE IF NOT EXISTS search_touched (
  entity search_entity NOT NULL,
  workspace_id UUID,
  record_id UUID NOT NULL
);

-- What the index was built with: sha256 of sql/duckdb/search-folding.sql and search.sql.
CREATE TABLE IF NOT EXISTS search_meta (
  sql_sha256 VARCHAR NOT NULL
);

-- Summaries the sync maintains (src/summaries/, docs/summaries.md) -------------------------------
-- Derived from the tables above in the same DuckDB transaction as the changes they summarise,
-- so a report never sees a summary that disagrees with its rows. Each is equal, row for row, to
-- the macro it is refreshed from (test/summaries-sync.test.ts).

-- team_bill_figures_for(true): every live team bill's figures (decisions 7, "Bill amounts"),
-- read by the bill list, the payout summary and profitability. Computed per request, the
-- summary's bills took 23 ms of its 30 on the 10M-entry workspace (5,900 bills); read here, 4.
CREATE TABLE IF NOT EXISTS team_bill_figures (
  bill_id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  payee_id UUID NOT NULL,
  status VARCHAR NOT NULL,
  currency VARCHAR NOT NULL,
  due_date DATE,
  subtotal DECIMAL(38, 4) NOT NULL,
  adjustment_total DECIMAL(38, 4) NOT NULL,
  total DECIMAL(38, 4) NOT NULL,
  amount_paid DECIMAL(38, 4) NOT NULL,
  remaining DECIMAL(38, 4) NOT NULL,
  payment_status VARCHAR NOT NULL
);

-- payee_entry_rates_for(true) WHERE is_payable: the entries owed to payees and not yet on an
-- APPROVED bill (most work is billed, so this is a small part of time_entries).
CREATE TABLE IF NOT EXISTS payee_entry_pay (
  workspace_id UUID NOT NULL,
  payee_id UUID NOT NULL,
  payee_name VARCHAR,
  payee_start_date DATE,
  time_entry_id UUID NOT NULL,
  user_id UUID,
  project_id UUID,
  task_id UUID,
  entry_date DATE,
  duration_seconds INTEGER,
  billable BOOLEAN,
  is_running BOOLEAN,
  note VARCHAR,
  created_at TIMESTAMP WITH TIME ZONE,
  rate_id UUID,
  rate_effective_from DATE,
  hourly_rate DECIMAL(18, 4),
  rate_currency VARCHAR,
  rate_currency_key SMALLINT,
  on_or_after_start BOOLEAN,
  on_approved_bill BOOLEAN,
  is_payable BOOLEAN
);

-- invoice_unallocated_nets_for(true): per invoice and line project, the net of the lines that
-- name no time entry (profitability's unallocated revenue), in 10^-4 units of the invoice
-- currency.
CREATE TABLE IF NOT EXISTS invoice_unallocated_nets (
  workspace_id UUID NOT NULL,
  invoice_id UUID NOT NULL,
  project_id UUID,
  net_e4 BIGINT NOT NULL
);

-- The keys a sync batch refreshes the summaries for; filled and emptied inside its transaction.
CREATE TABLE IF NOT EXISTS summary_dirty_bills (bill_id UUID NOT NULL);
CREATE TABLE IF NOT EXISTS summary_dirty_invoices (invoice_id UUID NOT NULL);
CREATE TABLE IF NOT EXISTS summary_dirty_entries (time_entry_id UUID NOT NULL);
CREATE TABLE IF NOT EXISTS summary_dirty_facts (time_entry_id UUID NOT NULL);

-- The entries whose priced facts are being computed, with their TIME bill lines and invoice
-- lines: what profitability_facts_for prices. A first load fills them a run of months at a
-- time, a sync batch with the entries it made stale; emptied after each use. Read from these
-- small tables, the pricing statement is planned on the rows it prices: read from the copied
-- tables inside a batch that had just changed an entry, DuckDB's estimates led it to join
-- millions of invoice lines before narrowing them to the batch's entries (0.5-1 s a batch on
-- the 10M-entry workspace).
CREATE TABLE IF NOT EXISTS fact_input_entries (
  time_entry_id UUID NOT NULL,
  workspace_id UUID NOT NULL,
  user_id UUID NOT NULL,
  project_id UUID NOT NULL,
  entry_date DATE NOT NULL,
  duration_seconds INTEGER NOT NULL,
  billable BOOLEAN NOT NULL
);
CREATE TABLE IF NOT EXISTS fact_input_bill_lines (
  line_id UUID NOT NULL,
  time_entry_id UUID NOT NULL,
  bill_id UUID NOT NULL,
  amount DECIMAL(18,4) NOT NULL
);
CREATE TABLE IF NOT EXISTS fact_input_invoice_lines (
  line_id UUID NOT NULL,
  time_entry_id UUID NOT NULL,
  invoice_id UUID NOT NULL,
  amount DECIMAL(18,4) NOT NULL
);

-- profitability_facts_for(ws) of every workspace's entries: the priced facts of each time entry,
-- what a profitability report sums (sql/duckdb/views/profitability_facts_for.sql). A first
-- load writes them in entry-date order, so a range of days reads a few row groups.
CREATE TABLE IF NOT EXISTS profitability_facts (
  workspace_id UUID NOT NULL,
  time_entry_id UUID NOT NULL,
  user_id UUID NOT NULL,
  project_id UUID NOT NULL,
  entry_date DATE NOT NULL,
  cost_currency VARCHAR,
  cost_rate_id UUID,
  cost_needs_fx BOOLEAN NOT NULL,
  approved_e4 BIGINT,
  paid_e4 BIGINT,
  estimated_e4 BIGINT,
  approved_b4 BIGINT,
  paid_b4 BIGINT,
  estimated_b4 BIGINT,
  revenue_currency VARCHAR,
  revenue_rate_id UUID,
  revenue_needs_fx BOOLEAN NOT NULL,
  billed_e4 BIGINT,
  collected_e4 BIGINT,
  billed_b4 BIGINT,
  collected_b4 BIGINT,
  missing_pay_rate BOOLEAN NOT NULL,
  unbilled_seconds BIGINT NOT NULL
);

-- The priced facts summed per month of work, member, project, currencies and rates used
-- (profitability_month_facts_for): a report reads its range's whole months here. *_missing_e4
-- is the native sum of the amounts that had no FX rate (NULL: none). Sums are BIGINT, as the
-- facts' amounts are: a key whose sums do not all fit 64 bits is several rows that add up to
-- them (e4_sum_parts). DuckDB scans and sums BIGINT columns about three times faster than
-- HUGEINT ones (a year of the 10M-entry workspace's rollup for a page of members: 133 ms
-- HUGEINT, 40 ms BIGINT).
CREATE TABLE IF NOT EXISTS profitability_month_facts (
  workspace_id UUID NOT NULL,
  month DATE NOT NULL,
  user_id UUID NOT NULL,
  project_id UUID NOT NULL,
  cost_currency VARCHAR,
  cost_rate_id UUID,
  cost_needs_fx BOOLEAN NOT NULL,
  revenue_currency VARCHAR,
  revenue_rate_id UUID,
  revenue_needs_fx BOOLEAN NOT NULL,
  approved_e4 BIGINT,
  paid_e4 BIGINT,
  estimated_e4 BIGINT,
  billed_e4 BIGINT,
  collected_e4 BIGINT,
  approved_b4 BIGINT,
  paid_b4 BIGINT,
  estimated_b4 BIGINT,
  billed_b4 BIGINT,
  collected_b4 BIGINT,
  approved_missing_e4 BIGINT,
  paid_missing_e4 BIGINT,
  estimated_missing_e4 BIGINT,
  billed_missing_e4 BIGINT,
  collected_missing_e4 BIGINT,
  missing_pay_rate BOOLEAN NOT NULL,
  unbilled_seconds BIGINT NOT NULL
);
-- The (workspace, day, member, project) of the facts a sync batch changed, before and after:
-- the keys of every rollup of the facts that the batch refreshes.
CREATE TABLE IF NOT EXISTS summary_dirty_fact_days (
  workspace_id UUID NOT NULL,
  entry_date DATE NOT NULL,
  user_id UUID NOT NULL,
  project_id UUID NOT NULL
);

-- The priced facts summed per member without their projects, per day of work
-- (profitability_member_days_for) and per month (profitability_member_months_for, from the
-- days): a report's member rows read these, a member's few rows a day or month instead of a row
-- per project or per entry. Same sums as profitability_month_facts.
CREATE TABLE IF NOT EXISTS profitability_member_days (
  workspace_id UUID NOT NULL,
  entry_date DATE NOT NULL,
  user_id UUID NOT NULL,
  cost_currency VARCHAR,
  cost_rate_id UUID,
  cost_needs_fx BOOLEAN NOT NULL,
  revenue_currency VARCHAR,
  revenue_rate_id UUID,
  revenue_needs_fx BOOLEAN NOT NULL,
  approved_e4 BIGINT,
  paid_e4 BIGINT,
  estimated_e4 BIGINT,
  billed_e4 BIGINT,
  collected_e4 BIGINT,
  approved_b4 BIGINT,
  paid_b4 BIGINT,
  estimated_b4 BIGINT,
  billed_b4 BIGINT,
  collected_b4 BIGINT,
  approved_missing_e4 BIGINT,
  paid_missing_e4 BIGINT,
  estimated_missing_e4 BIGINT,
  billed_missing_e4 BIGINT,
  collected_missing_e4 BIGINT,
  missing_pay_rate BOOLEAN NOT NULL,
  unbilled_seconds BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS profitability_member_months (
  workspace_id UUID NOT NULL,
  month DATE NOT NULL,
  user_id UUID NOT NULL,
  cost_currency VARCHAR,
  cost_rate_id UUID,
  cost_needs_fx BOOLEAN NOT NULL,
  revenue_currency VARCHAR,
  revenue_rate_id UUID,
  revenue_needs_fx BOOLEAN NOT NULL,
  approved_e4 BIGINT,
  paid_e4 BIGINT,
  estimated_e4 BIGINT,
  billed_e4 BIGINT,
  collected_e4 BIGINT,
  approved_b4 BIGINT,
  paid_b4 BIGINT,
  estimated_b4 BIGINT,
  billed_b4 BIGINT,
  collected_b4 BIGINT,
  approved_missing_e4 BIGINT,
  paid_missing_e4 BIGINT,
  estimated_missing_e4 BIGINT,
  billed_missing_e4 BIGINT,
  collected_missing_e4 BIGINT,
  missing_pay_rate BOOLEAN NOT NULL,
  unbilled_seconds BIGINT NOT NULL
);
-- payee_unpaid_totals_for(true): per payee, rate currency (NULL: no rate at the entry's date)
-- and billable, the figures of its payable entries in payee_entry_pay.
CREATE TABLE IF NOT EXISTS payee_unpaid_totals (
  workspace_id UUID NOT NULL,
  payee_id UUID NOT NULL,
  currency VARCHAR,
  billable BOOLEAN,
  items BIGINT NOT NULL,
  seconds HUGEINT,
  first_date DATE,
  last_date DATE,
  amount DECIMAL(38, 4),
  unpriced BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS summary_dirty_payees (payee_id UUID NOT NULL);

-- Export journal (src/exports/export-journal.ts, docs/exports.md) ------------------------------
-- Which rows of the exported tables each sync batch changed, written in the same DuckDB
-- transaction as the rows, for incremental export schedules. One row per table and key: the
-- number of the last batch that changed it. A first load or a truncate empties it and starts a
-- new load id, so an incremental run can tell that it must export everything again.
CREATE TABLE IF NOT EXISTS export_journal (
  table_name VARCHAR NOT NULL,
  key VARCHAR NOT NULL,
  change_no BIGINT NOT NULL
);
-- One row: the load id and the number of the last batch journaled.
CREATE TABLE IF NOT EXISTS export_journal_state (
  load_id VARCHAR NOT NULL,
  change_no BIGINT NOT NULL
);
-- The keys a sync batch touched; filled and emptied inside its transaction.
CREATE TABLE IF NOT EXISTS export_journal_touched (
  table_name VARCHAR NOT NULL,
  key VARCHAR NOT NULL
);
