-- The rows a profitability report of workspace `ws` sums (decisions 8), in the month rollup's
-- form: per member, project, currencies and rates used, the sums of the amounts (native *_e4,
-- converted *_b4, and *_missing_e4: the native sum of the amounts that had no FX rate, NULL
-- when none had). The range's whole months, whole_from..whole_to (NULL: none), come from the
-- rollup (profitability_month_facts), its other days from the facts (profitability_facts), both
-- kept by the sync (docs/summaries.md): nothing is computed per request. Narrowed by
-- `user_filter`, `project_filter` and `client_filter` (the project's client); NULL narrows
-- nothing.
CREATE OR REPLACE MACRO profitability_range_rows(ws, d_from, d_to, whole_from, whole_to, user_filter, project_filter, client_filter) AS TABLE
WITH filter_projects AS (
  SELECT id FROM projects WHERE workspace_id = ws AND client_id = client_filter
)
SELECT * EXCLUDE (workspace_id, month)
FROM profitability_month_facts
WHERE workspace_id = ws
  AND month BETWEEN whole_from AND whole_to
  AND (user_filter IS NULL OR user_id = user_filter)
  AND (project_filter IS NULL OR project_id = project_filter)
  AND (client_filter IS NULL OR project_id IN (SELECT id FROM filter_projects))
UNION ALL BY NAME
SELECT
  user_id, project_id, cost_currency, cost_rate_id, cost_needs_fx,
  revenue_currency, revenue_rate_id, revenue_needs_fx,
  approved_e4, paid_e4, estimated_e4, billed_e4, collected_e4,
  approved_b4, paid_b4, estimated_b4, billed_b4, collected_b4,
  CASE WHEN approved_b4 IS NULL THEN approved_e4 END AS approved_missing_e4,
  CASE WHEN paid_b4 IS NULL THEN paid_e4 END AS paid_missing_e4,
  CASE WHEN estimated_b4 IS NULL THEN estimated_e4 END AS estimated_missing_e4,
  CASE WHEN billed_b4 IS NULL THEN billed_e4 END AS billed_missing_e4,
  CASE WHEN collected_b4 IS NULL THEN collected_e4 END AS collected_missing_e4,
  missing_pay_rate,
  unbilled_seconds
FROM profitability_facts
WHERE workspace_id = ws
  AND entry_date BETWEEN d_from AND d_to
  AND (whole_from IS NULL OR entry_date NOT BETWEEN whole_from AND whole_to)
  AND (user_filter IS NULL OR user_id = user_filter)
  AND (project_filter IS NULL OR project_id = project_filter)
  AND (client_filter IS NULL OR project_id IN (SELECT id FROM filter_projects));
