-- Change log for servers that cannot replicate (no REPLICATION role, or wal_level below
-- logical): statement triggers record the key of every row a transaction touches, with the
-- transaction's id. The sync reads the keys whose transactions became visible between two
-- snapshots (pg_visible_in_snapshot), then the rows themselves under the newer snapshot; see
-- docs/sync.md. A watermark on updated_at would miss transactions that commit late and every
-- hard delete; transaction visibility does not.
--
-- Logging is off until a sync in change-log mode switches it on (sync_change_log_state), so
-- a store followed by logical replication pays one cheap check per statement and keeps no log.

CREATE TABLE sync_change_log (
  seq bigserial PRIMARY KEY,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  table_name text NOT NULL,
  key jsonb NOT NULL
);
CREATE INDEX sync_change_log_txid_idx ON sync_change_log (txid);

CREATE TABLE sync_change_log_state (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  enabled boolean NOT NULL
);
INSERT INTO sync_change_log_state VALUES (true, false);


CREATE FUNCTION sync_log_workspaces() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'workspaces', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'workspaces', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON workspaces REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_workspaces();
CREATE TRIGGER sync_log_update AFTER UPDATE ON workspaces REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_workspaces();
CREATE TRIGGER sync_log_delete AFTER DELETE ON workspaces REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_workspaces();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE workspaces ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE workspaces ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE workspaces ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'users', jsonb_build_object('workspace_id', n.workspace_id, 'id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'users', jsonb_build_object('workspace_id', o.workspace_id, 'id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_users();
CREATE TRIGGER sync_log_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_users();
CREATE TRIGGER sync_log_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_users();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE users ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE users ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE users ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'members', jsonb_build_object('workspace_id', n.workspace_id, 'user_id', n.user_id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'members', jsonb_build_object('workspace_id', o.workspace_id, 'user_id', o.user_id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_members();
CREATE TRIGGER sync_log_update AFTER UPDATE ON members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_members();
CREATE TRIGGER sync_log_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_members();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE members ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE members ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE members ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_clients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'clients', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'clients', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON clients REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_clients();
CREATE TRIGGER sync_log_update AFTER UPDATE ON clients REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_clients();
CREATE TRIGGER sync_log_delete AFTER DELETE ON clients REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_clients();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE clients ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE clients ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE clients ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'projects', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'projects', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_projects();
CREATE TRIGGER sync_log_update AFTER UPDATE ON projects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_projects();
CREATE TRIGGER sync_log_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_projects();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE projects ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE projects ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE projects ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_project_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'project_members', jsonb_build_object('project_id', n.project_id, 'user_id', n.user_id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'project_members', jsonb_build_object('project_id', o.project_id, 'user_id', o.user_id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON project_members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_project_members();
CREATE TRIGGER sync_log_update AFTER UPDATE ON project_members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_project_members();
CREATE TRIGGER sync_log_delete AFTER DELETE ON project_members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_project_members();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE project_members ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE project_members ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE project_members ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_tasks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'tasks', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'tasks', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_tasks();
CREATE TRIGGER sync_log_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_tasks();
CREATE TRIGGER sync_log_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_tasks();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE tasks ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE tasks ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE tasks ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_invoices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'invoices', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'invoices', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON invoices REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_invoices();
CREATE TRIGGER sync_log_update AFTER UPDATE ON invoices REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_invoices();
CREATE TRIGGER sync_log_delete AFTER DELETE ON invoices REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_invoices();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE invoices ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE invoices ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE invoices ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_time_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'time_entries', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'time_entries', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON time_entries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_time_entries();
CREATE TRIGGER sync_log_update AFTER UPDATE ON time_entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_time_entries();
CREATE TRIGGER sync_log_delete AFTER DELETE ON time_entries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_time_entries();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE time_entries ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE time_entries ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE time_entries ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_expenses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'expenses', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'expenses', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON expenses REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_expenses();
CREATE TRIGGER sync_log_update AFTER UPDATE ON expenses REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_expenses();
CREATE TRIGGER sync_log_delete AFTER DELETE ON expenses REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_expenses();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE expenses ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE expenses ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE expenses ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_invoice_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'invoice_lines', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'invoice_lines', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON invoice_lines REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_invoice_lines();
CREATE TRIGGER sync_log_update AFTER UPDATE ON invoice_lines REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_invoice_lines();
CREATE TRIGGER sync_log_delete AFTER DELETE ON invoice_lines REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_invoice_lines();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE invoice_lines ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE invoice_lines ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE invoice_lines ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_payees() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'payees', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'payees', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON payees REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payees();
CREATE TRIGGER sync_log_update AFTER UPDATE ON payees REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payees();
CREATE TRIGGER sync_log_delete AFTER DELETE ON payees REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payees();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE payees ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE payees ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE payees ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_payee_rates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'payee_rates', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'payee_rates', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON payee_rates REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payee_rates();
CREATE TRIGGER sync_log_update AFTER UPDATE ON payee_rates REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payee_rates();
CREATE TRIGGER sync_log_delete AFTER DELETE ON payee_rates REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payee_rates();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE payee_rates ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE payee_rates ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE payee_rates ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_payee_credits() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'payee_credits', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'payee_credits', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON payee_credits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payee_credits();
CREATE TRIGGER sync_log_update AFTER UPDATE ON payee_credits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payee_credits();
CREATE TRIGGER sync_log_delete AFTER DELETE ON payee_credits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_payee_credits();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE payee_credits ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE payee_credits ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE payee_credits ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_team_bills() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'team_bills', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'team_bills', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON team_bills REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_bills();
CREATE TRIGGER sync_log_update AFTER UPDATE ON team_bills REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_bills();
CREATE TRIGGER sync_log_delete AFTER DELETE ON team_bills REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_bills();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE team_bills ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE team_bills ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE team_bills ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_team_bill_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'team_bill_lines', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'team_bill_lines', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON team_bill_lines REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_bill_lines();
CREATE TRIGGER sync_log_update AFTER UPDATE ON team_bill_lines REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_bill_lines();
CREATE TRIGGER sync_log_delete AFTER DELETE ON team_bill_lines REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_bill_lines();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE team_bill_lines ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE team_bill_lines ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE team_bill_lines ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_team_payments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'team_payments', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'team_payments', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON team_payments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_payments();
CREATE TRIGGER sync_log_update AFTER UPDATE ON team_payments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_payments();
CREATE TRIGGER sync_log_delete AFTER DELETE ON team_payments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_payments();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE team_payments ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE team_payments ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE team_payments ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_team_payment_allocations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'team_payment_allocations', jsonb_build_object('payment_id', n.payment_id, 'bill_id', n.bill_id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'team_payment_allocations', jsonb_build_object('payment_id', o.payment_id, 'bill_id', o.bill_id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON team_payment_allocations REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_payment_allocations();
CREATE TRIGGER sync_log_update AFTER UPDATE ON team_payment_allocations REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_payment_allocations();
CREATE TRIGGER sync_log_delete AFTER DELETE ON team_payment_allocations REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_team_payment_allocations();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE team_payment_allocations ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE team_payment_allocations ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE team_payment_allocations ENABLE ALWAYS TRIGGER sync_log_delete;

CREATE FUNCTION sync_log_fx_rates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'fx_rates', jsonb_build_object('id', n.id) FROM new_rows n;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key) SELECT 'fx_rates', jsonb_build_object('id', o.id) FROM old_rows o;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sync_log_insert AFTER INSERT ON fx_rates REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_fx_rates();
CREATE TRIGGER sync_log_update AFTER UPDATE ON fx_rates REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_fx_rates();
CREATE TRIGGER sync_log_delete AFTER DELETE ON fx_rates REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_fx_rates();
-- Also under session_replication_role = replica (the importer's bulk insert).
ALTER TABLE fx_rates ENABLE ALWAYS TRIGGER sync_log_insert;
ALTER TABLE fx_rates ENABLE ALWAYS TRIGGER sync_log_update;
ALTER TABLE fx_rates ENABLE ALWAYS TRIGGER sync_log_delete;
