-- The store refuses every value the read model or the API cannot hold, so a row written by
-- another tool (psql, a script, a restore) cannot stop the sync into DuckDB. The edge checks
-- the same rules first, with an error naming the field (src/stored-values.ts); these CHECKs
-- are the backstop behind it. Column by column, PostgreSQL type against DuckDB's
-- (sql/duckdb/tables.sql):
--
-- * date, timestamptz: years 0001-9999, UTC for timestamptz (the bounds carry +00, so the
--   session's TimeZone does not move them). This also refuses BC dates (a JS Date of year 0
--   is written as '0001-01-01 BC', which the sync cannot read back) and 'infinity' and
--   '-infinity', which no API or export format can write.
-- * numeric: not 'NaN', which PostgreSQL's numeric holds and DuckDB's DECIMAL cannot.
--   'Infinity' cannot reach a numeric(p, s) column; every numeric column has a scale.
-- * text and jsonb cannot hold U+0000 in PostgreSQL already; integer, boolean, uuid, their
--   arrays and jsonb map onto DuckDB types that hold every value. There are no float columns.
--
-- The columns are read from the catalog, so none is missed: every table of the schema but
-- the migrator's own. A new date, timestamp or numeric column needs the same CHECK in its own
-- migration. One ALTER TABLE per table, so each table is scanned once to check the rows it
-- holds; a store holding a value these refuse fails this migration, naming the constraint,
-- and that row must be corrected before the server starts.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT c.table_name, string_agg(
      CASE
        WHEN c.data_type = 'numeric' THEN
          format('ADD CONSTRAINT %I CHECK (%I <> ''NaN'')',
            c.table_name || '_' || c.column_name || '_not_nan', c.column_name)
        WHEN c.data_type = 'timestamp with time zone' THEN
          format('ADD CONSTRAINT %I CHECK (%I >= ''0001-01-01 00:00:00+00'' AND %I < ''10000-01-01 00:00:00+00'')',
            c.table_name || '_' || c.column_name || '_years', c.column_name, c.column_name)
        ELSE
          format('ADD CONSTRAINT %I CHECK (%I >= ''0001-01-01'' AND %I < ''10000-01-01'')',
            c.table_name || '_' || c.column_name || '_years', c.column_name, c.column_name)
      END, ', ' ORDER BY c.ordinal_position) AS checks
    FROM information_schema.columns c
    JOIN information_schema.tables tb
      ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
    WHERE c.table_schema = current_schema()
      AND tb.table_type = 'BASE TABLE'
      AND c.table_name <> 'schema_migrations'
      AND c.data_type IN ('date', 'timestamp with time zone', 'timestamp without time zone', 'numeric')
    GROUP BY c.table_name
  LOOP
    EXECUTE format('ALTER TABLE %I %s', t.table_name, t.checks);
  END LOOP;
END $$;
