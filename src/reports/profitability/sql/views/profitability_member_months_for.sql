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
      sum(d.unbilled_seconds) AS unbilled_seconds,
      {
        'facts': CAST(sum(d.counts.facts) AS BIGINT),
        'approved_e4': CAST(sum(d.counts.approved_e4) AS BIGINT),
        'paid_e4': CAST(sum(d.counts.paid_e4) AS BIGINT),
        'estimated_e4': CAST(sum(d.counts.estimated_e4) AS BIGINT),
        'billed_e4': CAST(sum(d.counts.billed_e4) AS BIGINT),
        'collected_e4': CAST(sum(d.counts.collected_e4) AS BIGINT),
        'approved_b4': CAST(sum(d.counts.approved_b4) AS BIGINT),
        'paid_b4': CAST(sum(d.counts.paid_b4) AS BIGINT),
        'estimated_b4': CAST(sum(d.counts.estimated_b4) AS BIGINT),
        'billed_b4': CAST(sum(d.counts.billed_b4) AS BIGINT),
        'collected_b4': CAST(sum(d.counts.collected_b4) AS BIGINT),
        'missing_pay_rate': CAST(sum(d.counts.missing_pay_rate) AS BIGINT)
      } AS counts
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
SELECT * FROM profitability_rollup_parts('summed');
