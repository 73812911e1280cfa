-- The longest text each column of the read model's tables holds, in characters (code points,
-- PostgreSQL's char_length), so that a row written by another tool cannot carry a value the
-- API would refuse or the sync could not carry within bounded memory (a 20 MB note once took
-- the read model's search index past its memory). The numbers are the edge's own
-- (docs/decisions.md, "Text limits"): the API's body limits for the columns it writes, the
-- snapshot importer's for the others; test/text-limits.test.ts holds the three to one number
-- per column, and fails for a text column of these tables without its CHECK.
--
-- A store already holding a longer value fails this migration, naming the constraint; that
-- row must be shortened before the server starts (as with sql/postgres/0007_storable_values.sql).

-- The longest element of a text array (0 for an empty one), for the CHECKs of tasks.tags.
CREATE FUNCTION text_array_longest(a text[]) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(max(char_length(x)), 0) FROM unnest(a) AS x $$;

ALTER TABLE workspaces
  ADD CONSTRAINT workspaces_timezone_length CHECK (char_length(timezone) <= 64);

ALTER TABLE users
  ADD CONSTRAINT users_name_length CHECK (char_length(name) <= 200),
  ADD CONSTRAINT users_email_length CHECK (char_length(email) <= 10000);

ALTER TABLE clients
  ADD CONSTRAINT clients_contact_name_length CHECK (char_length(contact_name) <= 200),
  ADD CONSTRAINT clients_email_length CHECK (char_length(email) <= 320),
  ADD CONSTRAINT clients_phone_length CHECK (char_length(phone) <= 100),
  ADD CONSTRAINT clients_website_length CHECK (char_length(website) <= 500),
  ADD CONSTRAINT clients_notes_length CHECK (char_length(notes) <= 10000),
  ADD CONSTRAINT clients_tax_number_length CHECK (char_length(tax_number) <= 100),
  ADD CONSTRAINT clients_billing_email_length CHECK (char_length(billing_email) <= 320),
  ADD CONSTRAINT clients_billing_address_length CHECK (char_length(billing_address) <= 1000),
  ADD CONSTRAINT clients_billing_line1_length CHECK (char_length(billing_line1) <= 200),
  ADD CONSTRAINT clients_billing_line2_length CHECK (char_length(billing_line2) <= 200),
  ADD CONSTRAINT clients_billing_city_length CHECK (char_length(billing_city) <= 200),
  ADD CONSTRAINT clients_billing_region_length CHECK (char_length(billing_region) <= 200),
  ADD CONSTRAINT clients_billing_postal_code_length CHECK (char_length(billing_postal_code) <= 50),
  ADD CONSTRAINT clients_billing_country_length CHECK (char_length(billing_country) <= 100),
  ADD CONSTRAINT clients_default_payment_terms_length CHECK (char_length(default_payment_terms) <= 200);

ALTER TABLE projects
  ADD CONSTRAINT projects_description_length CHECK (char_length(description) <= 10000),
  ADD CONSTRAINT projects_color_length CHECK (char_length(color) <= 10000);

ALTER TABLE tasks
  ADD CONSTRAINT tasks_description_length CHECK (char_length(description) <= 10000),
  ADD CONSTRAINT tasks_tags_length CHECK (cardinality(tags) <= 50 AND text_array_longest(tags) <= 50);

ALTER TABLE invoices
  ADD CONSTRAINT invoices_number_length CHECK (char_length(number) <= 100),
  ADD CONSTRAINT invoices_po_number_length CHECK (char_length(po_number) <= 10000),
  ADD CONSTRAINT invoices_bill_to_name_length CHECK (char_length(bill_to_name) <= 10000),
  ADD CONSTRAINT invoices_notes_length CHECK (char_length(notes) <= 10000);

ALTER TABLE time_entries
  ADD CONSTRAINT time_entries_note_length CHECK (char_length(note) <= 10000);

ALTER TABLE expenses
  ADD CONSTRAINT expenses_custom_category_length CHECK (char_length(custom_category) <= 100),
  ADD CONSTRAINT expenses_description_length CHECK (char_length(description) <= 1000);

ALTER TABLE invoice_lines
  ADD CONSTRAINT invoice_lines_description_length CHECK (char_length(description) <= 10000),
  ADD CONSTRAINT invoice_lines_subtitle_length CHECK (char_length(subtitle) <= 10000),
  ADD CONSTRAINT invoice_lines_detail_length CHECK (char_length(detail) <= 10000),
  ADD CONSTRAINT invoice_lines_group_label_length CHECK (char_length(group_label) <= 10000);

ALTER TABLE payees
  ADD CONSTRAINT payees_name_length CHECK (char_length(name) <= 200),
  ADD CONSTRAINT payees_email_length CHECK (char_length(email) <= 10000);

ALTER TABLE payee_credits
  ADD CONSTRAINT payee_credits_reason_length CHECK (char_length(reason) <= 10000);

-- The bills' and lines' JSON snapshots of fields (no workspace snapshot carries them; only
-- another tool writes them): bounded by their text form.
ALTER TABLE team_bills
  ADD CONSTRAINT team_bills_number_length CHECK (char_length(number) <= 100),
  ADD CONSTRAINT team_bills_note_length CHECK (char_length(note) <= 10000),
  ADD CONSTRAINT team_bills_void_reason_length CHECK (char_length(void_reason) <= 10000),
  ADD CONSTRAINT team_bills_line_group_by_length CHECK (char_length(line_group_by) <= 10000),
  ADD CONSTRAINT team_bills_payee_snapshot_length CHECK (char_length(payee_snapshot::text) <= 100000),
  ADD CONSTRAINT team_bills_agency_snapshot_length CHECK (char_length(agency_snapshot::text) <= 100000);

ALTER TABLE team_bill_lines
  ADD CONSTRAINT team_bill_lines_description_length CHECK (char_length(description) <= 10000),
  ADD CONSTRAINT team_bill_lines_source_snapshot_length CHECK (char_length(source_snapshot::text) <= 100000);

ALTER TABLE team_payments
  ADD CONSTRAINT team_payments_reference_length CHECK (char_length(reference) <= 10000),
  ADD CONSTRAINT team_payments_note_length CHECK (char_length(note) <= 10000),
  ADD CONSTRAINT team_payments_reversal_reason_length CHECK (char_length(reversal_reason) <= 10000);
