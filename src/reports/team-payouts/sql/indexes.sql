-- A changed entry's pay rows are read and replaced by entry (payable-refresh.ts): at 2.2M rows
-- a lookup of 5 entries took 41 ms scanning the column, 2 ms through the index
-- (sql/duckdb/indexes.sql says how the read model keeps its indexes).
CREATE INDEX IF NOT EXISTS payee_entry_pay_entry ON payee_entry_pay (time_entry_id);
