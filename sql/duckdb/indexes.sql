-- Indexes of the read model, created when it is opened (an existing file gets them without
-- being rebuilt). DuckDB keeps an ART index in memory and uses it for lookups of a few keys.
--
-- A list page's rows that the record cache lacks are read back by id (src/api/list/keyset.ts:
-- `WHERE r.id IN (...)`). Without an index DuckDB scans every id of the table and then reads
-- 25 columns at scattered positions: 23 ms p50 for 51 of 100k clients; with one, 6 ms.
-- Only tables of up to a few hundred thousand rows here: an index on the 10M time entries
-- would take about half a gigabyte of memory.
CREATE INDEX IF NOT EXISTS clients_id ON clients (id);
CREATE INDEX IF NOT EXISTS projects_id ON projects (id);
CREATE INDEX IF NOT EXISTS invoices_id ON invoices (id);
