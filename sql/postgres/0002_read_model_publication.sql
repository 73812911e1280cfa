-- Logical replication feeds the DuckDB read model (src/sync/). The publication names every
-- table the read model copies; api_tokens and idempotency_keys stay operational only.
--
-- REPLICA IDENTITY FULL: an UPDATE then carries the whole old row, so a large value that
-- PostgreSQL kept out of line (TOAST) and did not change still arrives with the update
-- instead of as "unchanged", and a DELETE carries the row the read model should remove.
CREATE PUBLICATION ledgerline_read_model FOR TABLE
  workspaces, users, members, clients, projects, project_members, tasks, invoices,
  time_entries, expenses, invoice_lines, payees, payee_rates, payee_credits, team_bills,
  team_bill_lines, team_payments, team_payment_allocations, fx_rates;

ALTER TABLE workspaces REPLICA IDENTITY FULL;
ALTER TABLE users REPLICA IDENTITY FULL;
ALTER TABLE members REPLICA IDENTITY FULL;
ALTER TABLE clients REPLICA IDENTITY FULL;
ALTER TABLE projects REPLICA IDENTITY FULL;
ALTER TABLE project_members REPLICA IDENTITY FULL;
ALTER TABLE tasks REPLICA IDENTITY FULL;
ALTER TABLE invoices REPLICA IDENTITY FULL;
ALTER TABLE time_entries REPLICA IDENTITY FULL;
ALTER TABLE expenses REPLICA IDENTITY FULL;
ALTER TABLE invoice_lines REPLICA IDENTITY FULL;
ALTER TABLE payees REPLICA IDENTITY FULL;
ALTER TABLE payee_rates REPLICA IDENTITY FULL;
ALTER TABLE payee_credits REPLICA IDENTITY FULL;
ALTER TABLE team_bills REPLICA IDENTITY FULL;
ALTER TABLE team_bill_lines REPLICA IDENTITY FULL;
ALTER TABLE team_payments REPLICA IDENTITY FULL;
ALTER TABLE team_payment_allocations REPLICA IDENTITY FULL;
ALTER TABLE fx_rates REPLICA IDENTITY FULL;
