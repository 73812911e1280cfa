-- The profitability report's tables (profitability.derived.ts, docs/summaries.md): derived from
-- the copied tables (sql/duckdb/tables.sql) and team_bill_figures (the team-payout part's) in
-- the same DuckDB transaction as the changes they summarise. Each is equal, row for row, to the
-- macro it is refreshed from (test/reports/summaries-sync.test.ts).

-- invoice_unallocated_nets_for(true): per invoice and line project, the net of the lines that
-- name no time entry (profitability's unallocated revenue), in 10^-4 units of the invoice
-- currency.
CREATE TABLE IF NOT EXISTS invoice_unallocated_nets (
  workspace_id UUID NOT NULL,
  invoice_id UUID NOT NULL,
  project_id UUID,
  net_e4 BIGINT NOT NULL
);
-- The keys a sync batch refreshes these tables for; filled and emptied inside its transaction.
CREATE TABLE IF NOT EXISTS summary_dirty_invoices (invoice_id UUID NOT NULL);
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
-- what a profitability report sums (sql/views/profitability_facts_for.sql). A first
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

-- The three rollups of the priced facts (profitability_month_facts, profitability_member_days,
-- profitability_member_months) are made from the metrics' declaration
-- (src/reports/profitability/metrics.ts; docs/summaries.md, "Declaring a metric").

-- The (workspace, day, member, project) of the facts a sync batch changed, before and after:
-- the keys of every rollup of the facts that the batch refreshes.
CREATE TABLE IF NOT EXISTS summary_dirty_fact_days (
  workspace_id UUID NOT NULL,
  entry_date DATE NOT NULL,
  user_id UUID NOT NULL,
  project_id UUID NOT NULL
);
