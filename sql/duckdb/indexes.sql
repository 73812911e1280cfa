-- Indexes of the copied tables, created when the read model is opened (an existing file gets
-- them without being rebuilt) and after a load that replaced every row (docs/sync.md,
-- "Lookups by id"). DuckDB keeps an ART index in its file and loads the parts a lookup
-- touches: an index on the 10M time entries takes about 12 MB of memory after lookups, and
-- 3.7 s to build.
--
-- A list page's rows that the record cache lacks are read back by id (src/api/list/keyset.ts:
-- `WHERE r.id IN (...)`). Without an index DuckDB scans every id of the table and then reads
-- 25 columns at scattered positions: 23 ms p50 for 51 of 100k clients; with one, 6 ms.
CREATE INDEX IF NOT EXISTS clients_id ON clients (id);
CREATE INDEX IF NOT EXISTS projects_id ON projects (id);
CREATE INDEX IF NOT EXISTS invoices_id ON invoices (id);
-- The sync replaces a changed entry's row (src/sync/change-batch.ts: `DELETE … WHERE id IN`)
-- and the summaries read it back by id (fact-refresh.ts, payable-refresh.ts): at 10M entries a
-- lookup of 5 ids took 200 ms scanning the id column, 2 ms through the index.
CREATE INDEX IF NOT EXISTS time_entries_id ON time_entries (id);
-- The same refreshes read a changed entry's bill lines and invoice lines (7.3M and 4M rows at
-- 10M entries): 35 ms each scanning, 2-3 ms through these.
CREATE INDEX IF NOT EXISTS team_bill_lines_entry ON team_bill_lines (time_entry_id);
CREATE INDEX IF NOT EXISTS invoice_lines_entry ON invoice_lines (time_entry_id);
