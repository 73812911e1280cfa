-- Export journal (src/exports/export-journal.ts, docs/exports.md) ------------------------------
-- Which rows of the exported tables each sync batch changed, written in the same DuckDB
-- transaction as the rows, for incremental export schedules. One row per table and key: the
-- number of the last batch that changed it. A first load or a truncate empties it and starts a
-- new load id, so an incremental run can tell that it must export everything again.
CREATE TABLE IF NOT EXISTS export_journal (
  table_name VARCHAR NOT NULL,
  key VARCHAR NOT NULL,
  change_no BIGINT NOT NULL
);
-- One row: the load id and the number of the last batch journaled.
CREATE TABLE IF NOT EXISTS export_journal_state (
  load_id VARCHAR NOT NULL,
  change_no BIGINT NOT NULL
);
-- The keys a sync batch touched; filled and emptied inside its transaction.
CREATE TABLE IF NOT EXISTS export_journal_touched (
  table_name VARCHAR NOT NULL,
  key VARCHAR NOT NULL
);
