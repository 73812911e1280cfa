-- The team-payout reports' tables (team-payouts.derived.ts, docs/summaries.md): derived from the
-- copied tables (sql/duckdb/tables.sql) in the same DuckDB transaction as the changes they
-- summarise, so a report never sees a summary that disagrees with its rows. Each is equal, row
-- for row, to the macro it is refreshed from (test/reports/summaries-sync.test.ts).

-- team_bill_figures_for(true): every live team bill's figures (docs/contract.md, "Bill amounts"),
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

-- The keys a sync batch refreshes these tables for; filled and emptied inside its transaction.
CREATE TABLE IF NOT EXISTS summary_dirty_bills (bill_id UUID NOT NULL);
CREATE TABLE IF NOT EXISTS summary_dirty_entries (time_entry_id UUID NOT NULL);
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
