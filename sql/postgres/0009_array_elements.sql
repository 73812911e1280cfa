-- The store refuses a NULL element in every array column (tasks.assignee_ids, tasks.tags,
-- api_tokens.scopes), so a row written by another tool (psql, a script, a restore) holds only
-- what the API can answer. The API's record, the write bodies and the snapshot all take a list
-- of ids or texts, never a list with holes: a task whose tags held NULL could be neither
-- answered nor archived (src/api/record-values.ts, `strings`). The write bodies refuse such a
-- list first, naming the field; this CHECK is the backstop behind them.
--
-- array_to_string leaves NULL elements out unless it is given a text to write for them, so the
-- two calls agree exactly when the array holds none, whatever its dimensions; array_position
-- and array_remove would raise on an array of more than one dimension instead of answering.
--
-- The columns are read from the catalog, as in 0007_storable_values.sql, so none is missed:
-- every array column of every table of the schema but the migrator's own. A new array column
-- needs the same CHECK in its own migration. A store already holding a NULL element fails
-- this migration, naming the constraint (`tasks_tags_no_null_elements`), and changes nothing:
-- a migration does not rewrite what the store holds, and a NULL assignee may be an id that a
-- script lost and an operator can restore. docs/decisions.md ("Values the stores can hold")
-- gives the UPDATE that removes them.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT c.table_name, string_agg(
      format('ADD CONSTRAINT %I CHECK (array_to_string(%I, '','', ''-'') = array_to_string(%I, '',''))',
        c.table_name || '_' || c.column_name || '_no_null_elements', c.column_name, c.column_name),
      ', ' ORDER BY c.ordinal_position) AS checks
    FROM information_schema.columns c
    JOIN information_schema.tables tb
      ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
    WHERE c.table_schema = current_schema()
      AND tb.table_type = 'BASE TABLE'
      AND c.table_name <> 'schema_migrations'
      AND c.data_type = 'ARRAY'
    GROUP BY c.table_name
  LOOP
    EXECUTE format('ALTER TABLE %I %s', t.table_name, t.checks);
  END LOOP;
END $$;
