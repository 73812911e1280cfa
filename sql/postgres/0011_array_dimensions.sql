-- Every array column holds a list: one dimension, numbered from 1, or empty (an empty array
-- has no dimensions). PostgreSQL takes `'{{a,b},{c,d}}'` and `'[0:1]={a,b}'` in a text[] column
-- as well, which no API record, write body or snapshot can express, and whose text form in the
-- replication stream (`[0:1]={a,b}`) is not a list literal. The write bodies and the importer
-- write only lists; this CHECK is the backstop behind them for rows another tool writes, as
-- 0009_array_elements.sql is for NULL elements.
--
-- The columns are read from the catalog, as in 0009, so none is missed; a new array column
-- needs the same CHECK in its own migration. A store already holding such an array fails this
-- migration, naming the constraint (`tasks_tags_one_dimension`), and changes nothing.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT c.table_name, string_agg(
      format('ADD CONSTRAINT %I CHECK (cardinality(%I) = 0 OR (array_ndims(%I) = 1 AND array_lower(%I, 1) = 1))',
        c.table_name || '_' || c.column_name || '_one_dimension',
        c.column_name, c.column_name, c.column_name),
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
