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

-- One function for every table: the trigger's arguments name the table's key columns, and
-- the transition tables (new_rows, old_rows) hold every row the statement touched, so a bulk
-- statement logs in one set operation. An update logs the old key and the new one.
CREATE FUNCTION sync_log_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (SELECT enabled FROM sync_change_log_state) THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO sync_change_log (table_name, key)
    SELECT TG_TABLE_NAME, (SELECT jsonb_object_agg(k, r.j -> k) FROM unnest(TG_ARGV) AS k)
    FROM (SELECT to_jsonb(n) AS j FROM new_rows n) r;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO sync_change_log (table_name, key)
    SELECT TG_TABLE_NAME, (SELECT jsonb_object_agg(k, r.j -> k) FROM unnest(TG_ARGV) AS k)
    FROM (SELECT to_jsonb(o) AS j FROM old_rows o) r;
  END IF;
  RETURN NULL;
END $$;

DO $$
DECLARE
  t record;
  args text;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('workspaces', ARRAY['id']),
    ('users', ARRAY['workspace_id', 'id']),
    ('members', ARRAY['workspace_id', 'user_id']),
    ('clients', ARRAY['id']),
    ('projects', ARRAY['id']),
    ('project_members', ARRAY['project_id', 'user_id']),
    ('tasks', ARRAY['id']),
    ('invoices', ARRAY['id']),
    ('time_entries', ARRAY['id']),
    ('expenses', ARRAY['id']),
    ('invoice_lines', ARRAY['id']),
    ('payees', ARRAY['id']),
    ('payee_rates', ARRAY['id']),
    ('payee_credits', ARRAY['id']),
    ('team_bills', ARRAY['id']),
    ('team_bill_lines', ARRAY['id']),
    ('team_payments', ARRAY['id']),
    ('team_payment_allocations', ARRAY['payment_id', 'bill_id']),
    ('fx_rates', ARRAY['id'])
  ) AS v(name, keys) LOOP
    args := (SELECT string_agg(quote_literal(k), ', ') FROM unnest(t.keys) AS k);
    EXECUTE format('CREATE TRIGGER sync_log_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_changes(%s)', t.name, args);
    EXECUTE format('CREATE TRIGGER sync_log_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_changes(%s)', t.name, args);
    EXECUTE format('CREATE TRIGGER sync_log_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION sync_log_changes(%s)', t.name, args);
    -- Also under session_replication_role = replica (the importer's bulk insert).
    EXECUTE format('ALTER TABLE %I ENABLE ALWAYS TRIGGER sync_log_insert, ENABLE ALWAYS TRIGGER sync_log_update, ENABLE ALWAYS TRIGGER sync_log_delete', t.name);
  END LOOP;
END $$;
