-- The facts of days day_from..day_to in the rollup's form (profitability_range_rows).
CREATE OR REPLACE MACRO profitability_fact_rows(ws, day_from, day_to, user_filter, project_filter, client_filter) AS TABLE
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
  AND entry_date BETWEEN day_from AND day_to
  AND (user_filter IS NULL OR user_id = user_filter)
  AND (project_filter IS NULL OR project_id = project_filter)
  AND (client_filter IS NULL OR project_id IN (
    SELECT id FROM projects WHERE workspace_id = ws AND client_id = client_filter
  ));
