-- The priced facts (profitability_facts) summed per workspace, day of work, member, currencies
-- and rates used, their projects together: profitability_member_days. For every fact
-- (all_days), or only for the (day, member) of the keys in summary_dirty_fact_days, which the
-- sync refreshes, among the facts dated from_day..to_day (the bounds of those keys: a literal
-- range lets DuckDB skip the row groups of other dates). Sums as profitability_month_facts_for.
CREATE OR REPLACE MACRO profitability_member_days_for(all_days, from_day, to_day) AS TABLE
WITH summed AS (
  SELECT * FROM (
    SELECT
      f.workspace_id,
      f.entry_date,
      f.user_id,
      f.cost_currency,
      f.cost_rate_id,
      f.cost_needs_fx,
      f.revenue_currency,
      f.revenue_rate_id,
      f.revenue_needs_fx,
      sum(f.approved_e4) AS approved_e4,
      sum(f.paid_e4) AS paid_e4,
      sum(f.estimated_e4) AS estimated_e4,
      sum(f.billed_e4) AS billed_e4,
      sum(f.collected_e4) AS collected_e4,
      sum(f.approved_b4) AS approved_b4,
      sum(f.paid_b4) AS paid_b4,
      sum(f.estimated_b4) AS estimated_b4,
      sum(f.billed_b4) AS billed_b4,
      sum(f.collected_b4) AS collected_b4,
      sum(f.approved_e4) FILTER (WHERE f.approved_b4 IS NULL) AS approved_missing_e4,
      sum(f.paid_e4) FILTER (WHERE f.paid_b4 IS NULL) AS paid_missing_e4,
      sum(f.estimated_e4) FILTER (WHERE f.estimated_b4 IS NULL) AS estimated_missing_e4,
      sum(f.billed_e4) FILTER (WHERE f.billed_b4 IS NULL) AS billed_missing_e4,
      sum(f.collected_e4) FILTER (WHERE f.collected_b4 IS NULL) AS collected_missing_e4,
      bool_or(f.missing_pay_rate) AS missing_pay_rate,
      sum(f.unbilled_seconds) AS unbilled_seconds,
      {
        'facts': count(*),
        'approved_e4': count(f.approved_e4),
        'paid_e4': count(f.paid_e4),
        'estimated_e4': count(f.estimated_e4),
        'billed_e4': count(f.billed_e4),
        'collected_e4': count(f.collected_e4),
        'approved_b4': count(f.approved_b4),
        'paid_b4': count(f.paid_b4),
        'estimated_b4': count(f.estimated_b4),
        'billed_b4': count(f.billed_b4),
        'collected_b4': count(f.collected_b4),
        'missing_pay_rate': count(*) FILTER (WHERE f.missing_pay_rate)
      } AS counts
    FROM profitability_facts f
    WHERE all_days
      OR f.entry_date BETWEEN from_day AND to_day
      AND (f.entry_date, f.user_id) IN (SELECT (entry_date, user_id) FROM summary_dirty_fact_days)
    GROUP BY ALL
  ) g
  WHERE all_days
    OR (g.workspace_id, g.entry_date, g.user_id) IN (
      SELECT (workspace_id, entry_date, user_id) FROM summary_dirty_fact_days
    )
)
SELECT * FROM profitability_rollup_parts('summed');
