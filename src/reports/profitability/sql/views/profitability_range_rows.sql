-- The rows a profitability report of workspace `ws` sums (docs/contract.md, "Profitability"), in
-- the month rollup's form: per member, project, currencies and rates used, the sums of the amounts
-- (native *_e4, converted *_b4, and *_missing_e4: the native sum of the amounts that had no FX
-- rate, NULL when none had). The range's whole months, whole_from..whole_to (NULL: none), come from
-- the rollup (profitability_month_facts), its other days from the facts (profitability_facts), both
-- kept by the sync (docs/summaries.md): nothing is computed per request. Narrowed by
-- `user_filter`, `project_filter` and `client_filter` (the project's client); NULL narrows
-- nothing. `day` dates each row: its month's first day for a rollup row, its entry date for a
-- fact (what a series buckets by).
CREATE OR REPLACE MACRO profitability_range_rows(ws, d_from, d_to, whole_from, whole_to, user_filter, project_filter, client_filter) AS TABLE
WITH filter_projects AS (
  SELECT id FROM projects WHERE workspace_id = ws AND client_id = client_filter
)
SELECT month AS day, * EXCLUDE (workspace_id, month, counts)
FROM profitability_month_facts
WHERE workspace_id = ws
  AND month BETWEEN whole_from AND whole_to
  AND (user_filter IS NULL OR user_id = user_filter)
  AND (project_filter IS NULL OR project_id = project_filter)
  AND (client_filter IS NULL OR project_id IN (SELECT id FROM filter_projects))
UNION ALL BY NAME
-- The days before the whole months (all of the range when it has none), then the days after
-- them: two plain ranges of dates, which DuckDB matches against each row group's min and max
-- (an empty one, d_from..d_from - 1 or NULL, reads nothing).
SELECT * FROM profitability_fact_rows(
  ws, d_from, coalesce(whole_from - 1, d_to), user_filter, project_filter, client_filter
)
UNION ALL BY NAME
SELECT * FROM profitability_fact_rows(
  ws, whole_to + 1, d_to, user_filter, project_filter, client_filter
);
