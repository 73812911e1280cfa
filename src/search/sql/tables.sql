-- Search index (src/search/, docs/search.md): derived from the copied tables
-- (sql/duckdb/tables.sql), not copied from PostgreSQL; rebuilt by a first load and kept up to
-- date by each sync batch in the same DuckDB transaction as the rows it summarises. A full build writes it sorted (word ids follow entity,
-- workspace and word), so a search's filters skip the row groups that cannot match.

-- The entities searched, as an ENUM: a scan's `entity = 'client'` compares a byte, not a text
-- (one vocabulary scan 3.4 ms instead of 4.8, docs/search.md). Kept when the tables are made
-- anew (IF NOT EXISTS): give a changed list a new type name.
CREATE TYPE IF NOT EXISTS search_entity AS ENUM ('client', 'project', 'invoice');

-- One row per distinct word of one entity's records in one workspace and one field class
-- (the primary field, or the others), with the columns the matching filters on.
CREATE TABLE IF NOT EXISTS search_vocabulary (
  word_id BIGINT NOT NULL,
  entity search_entity NOT NULL,
  workspace_id UUID NOT NULL,
  word VARCHAR NOT NULL,
  primary_field BOOLEAN NOT NULL,
  word_length INTEGER NOT NULL,
  ascii_form VARCHAR,
  letters BIGINT NOT NULL,
  head BIGINT NOT NULL,
  tail BIGINT NOT NULL,
  gram2 BIGINT NOT NULL,
  gram3 BIGINT NOT NULL,
  gram4 BIGINT NOT NULL,
  gram5 BIGINT NOT NULL,
  records INTEGER NOT NULL
);

-- Which record holds which word: one row per word id and record. Each carries what a list
-- page of the record's entity is chosen by when a search is its only filter: the record's
-- created_at and whether it is not deleted (live), so that such a page needs no join with the
-- entity's table (docs/search.md, "Pages from the index").
CREATE TABLE IF NOT EXISTS search_postings (
  word_id BIGINT NOT NULL,
  record_id UUID NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  live BOOLEAN NOT NULL
);

-- The word ids of each record, to find its postings when the record changes, and the
-- created_at and live its postings carry.
CREATE TABLE IF NOT EXISTS search_documents (
  entity search_entity NOT NULL,
  workspace_id UUID NOT NULL,
  record_id UUID NOT NULL,
  word_ids BIGINT[] NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  live BOOLEAN NOT NULL
);

-- The records a sync batch refreshes (workspace_id NULL for a record already deleted);
-- filled and emptied inside that batch's transaction.
CREATE TABLE IF NOT EXISTS search_touched (
  entity search_entity NOT NULL,
  workspace_id UUID,
  record_id UUID NOT NULL
);

-- What the index was built with: sha256 of src/search/sql/search-folding.sql and search.sql.
CREATE TABLE IF NOT EXISTS search_meta (
  sql_sha256 VARCHAR NOT NULL
);
