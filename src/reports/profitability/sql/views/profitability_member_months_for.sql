-- profitability_member_days summed per month: profitability_member_months. For every day
-- (all_months), or only for the (month, member) of the keys in summary_dirty_fact_days, among
-- the days from_day..to_day (the bounds of those keys' months). A sum of sums, so that
-- *_missing_e4 stays NULL when no day had a missing amount.
CREATE OR REPLACE MACRO profitability_member_months_for(all_months, from_day, to_day) AS TABLE
WITH summed AS (
  SELECT * FROM (
    SELECT
      d.workspace_id,
      entry_month(d.entry_date) AS month,
      d.user_id,
      d.cost_currency,
      d.cost_rate_id,
      d.cost_needs_fx,
      d.revenue_currency,
      d.revenue_rate_id,
      d.revenue_needs_fx,
      sum(d.approved_e4) AS approved_e4,
      sum(d.paid_e4) AS paid_e4,
      sum(d.estimated_e4) AS estimated_e4,
      sum(d.billed_e4) AS billed_e4,
      sum(d.collected_e4) AS collected_e4,
      sum(d.approved_b4) AS approved_b4,
      sum(d.paid_b4) AS paid_b4,
      sum(d.estimated_b4) AS estimated_b4,
      sum(d.billed_b4) AS billed_b4,
      sum(d.collected_b4) AS collected_b4,
      sum(d.approved_missing_e4) AS approved_missing_e4,
      sum(d.paid_missing_e4) AS paid_missing_e4,
      sum(d.estimated_missing_e4) AS estimated_missing_e4,
      sum(d.billed_missing_e4) AS billed_missing_e4,
      sum(d.collected_missing_e4) AS collected_missing_e4,
      bool_or(d.missing_pay_rate) AS missing_pay_rate,
      sum(d.unbilled_seconds) AS unbilled_seconds
    FROM profitability_member_days d
    WHERE all_months
      OR d.entry_date BETWEEN from_day AND to_day
      AND d.user_id IN (SELECT user_id FROM summary_dirty_fact_days)
    GROUP BY ALL
  ) g
  WHERE all_months
    OR (g.workspace_id, g.month, g.user_id) IN (
      SELECT (workspace_id, entry_month(entry_date), user_id) FROM summary_dirty_fact_days
    )
)
-- Each row in 64-bit parts that add up to its sums (e4_sum_parts).
SELECT
  workspace_id,
  month,
  user_id,
  cost_currency,
  cost_rate_id,
  cost_needs_fx,
  revenue_currency,
  revenue_rate_id,
  revenue_needs_fx,
  e4_part(approved_e4, parts, part) AS approved_e4,
  e4_part(paid_e4, parts, part) AS paid_e4,
  e4_part(estimated_e4, parts, part) AS estimated_e4,
  e4_part(billed_e4, parts, part) AS billed_e4,
  e4_part(collected_e4, parts, part) AS collected_e4,
  e4_part(approved_b4, parts, part) AS approved_b4,
  e4_part(paid_b4, parts, part) AS paid_b4,
  e4_part(estimated_b4, parts, part) AS estimated_b4,
  e4_part(billed_b4, parts, part) AS billed_b4,
  e4_part(collected_b4, parts, part) AS collected_b4,
  e4_part(approved_missing_e4, parts, part) AS approved_missing_e4,
  e4_part(paid_missing_e4, parts, part) AS paid_missing_e4,
  e4_part(estimated_missing_e4, parts, part) AS estimated_missing_e4,
  e4_part(billed_missing_e4, parts, part) AS billed_missing_e4,
  e4_part(collected_missing_e4, parts, part) AS collected_missing_e4,
  missing_pay_rate,
  e4_part(unbilled_seconds, parts, part) AS unbilled_seconds
FROM (
  SELECT *, unnest(range(parts)) AS part
  FROM (
    SELECT *, e4_sum_parts(approved_e4, paid_e4, estimated_e4, billed_e4, collected_e4, approved_b4, paid_b4, estimated_b4, billed_b4, collected_b4, approved_missing_e4, paid_missing_e4, estimated_missing_e4, billed_missing_e4, collected_missing_e4, unbilled_seconds) AS parts
    FROM summed
  )
);
