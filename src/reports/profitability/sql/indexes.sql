-- A changed entry's priced facts are read and replaced by entry (fact-refresh.ts): at 10M
-- facts a lookup of 5 entries took 200 ms scanning the column, 2 ms through the index
-- (sql/duckdb/indexes.sql says how the read model keeps its indexes).
CREATE INDEX IF NOT EXISTS profitability_facts_entry ON profitability_facts (time_entry_id);
