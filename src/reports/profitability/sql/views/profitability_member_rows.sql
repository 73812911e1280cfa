-- The rows a profitability report's member lines sum when it is narrowed by no project or
-- client: profitability_range_rows without the project, from the member rollups, which hold a
-- member's few rows a month or day instead of one per project or entry. The range's whole
-- months, whole_from..whole_to (NULL: none), from profitability_member_months; the days before
-- and after them from profitability_member_days. Narrowed by `user_filter` (NULL: all). `day`
-- dates each row as in profitability_range_rows.
CREATE OR REPLACE MACRO profitability_member_rows(ws, d_from, d_to, whole_from, whole_to, user_filter) AS TABLE
SELECT month AS day, * EXCLUDE (workspace_id, month, counts)
FROM profitability_member_months
WHERE workspace_id = ws
  AND month BETWEEN whole_from AND whole_to
  AND (user_filter IS NULL OR user_id = user_filter)
UNION ALL BY NAME
SELECT entry_date AS day, * EXCLUDE (workspace_id, entry_date, counts)
FROM profitability_member_days
WHERE workspace_id = ws
  AND (
    entry_date BETWEEN d_from AND coalesce(whole_from - 1, d_to)
    OR entry_date BETWEEN whole_to + 1 AND d_to
  )
  AND (user_filter IS NULL OR user_id = user_filter);
