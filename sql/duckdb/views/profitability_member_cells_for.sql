-- The month cells (profitability_month_cells) summed over projects: per workspace, month,
-- member, metric, currency and FX rate. For every member (all_members), or only for the
-- members and months of summary_dirty_cells: the sync keeps the table
-- profitability_member_cells equal to the first by refreshing the second. Like a month cell,
-- a member cell beyond 64 bits is several rows (e4_parts, e4_part).
CREATE OR REPLACE MACRO profitability_member_cells_for(all_members) AS TABLE
WITH sums AS (
  SELECT
    c.workspace_id,
    c.month,
    c.user_id,
    c.metric,
    c.currency,
    c.fx_rate_id,
    sum(c.native_e4) AS native_e4,
    sum(c.converted_e4) AS converted_e4,
    sum(c.missing_e4) AS missing_e4,
    bool_or(c.fx_missing) AS fx_missing,
    bool_or(c.needs_fx) AS needs_fx,
    bool_or(c.missing_pay_rate) AS missing_pay_rate,
    sum(c.unbilled_seconds) AS unbilled_seconds
  FROM profitability_month_cells c
  WHERE all_members
    OR EXISTS (
      SELECT 1 FROM summary_dirty_cells d
      WHERE d.workspace_id = c.workspace_id AND d.month = c.month AND d.user_id = c.user_id
    )
  GROUP BY c.workspace_id, c.month, c.user_id, c.metric, c.currency, c.fx_rate_id
),
-- Each cell in as many rows as its sums need (nearly always one).
parted AS (
  SELECT *, unnest(range(parts)) AS part
  FROM (SELECT *, e4_parts(native_e4, converted_e4, missing_e4) AS parts FROM sums)
)
SELECT
  workspace_id, month, user_id, metric, currency, fx_rate_id,
  e4_part(native_e4, parts, part) AS native_e4,
  e4_part(converted_e4, parts, part) AS converted_e4,
  e4_part(missing_e4, parts, part) AS missing_e4,
  CASE WHEN part = 0 THEN CAST(unbilled_seconds AS BIGINT) ELSE 0 END AS unbilled_seconds,
  fx_missing, needs_fx, missing_pay_rate
FROM parted;
