-- The priced facts (profitability_facts) summed per workspace, month of work, member, project,
-- currencies and rates used: profitability_month_facts. For every fact (all_months), or only
-- for the (month, member, project) of the keys in summary_dirty_fact_days, which the sync refreshes, among the
-- facts dated from_day..to_day (the bounds of those keys' months: a literal range lets DuckDB
-- skip the row groups of other dates).
-- cost_needs_fx / revenue_needs_fx are part of the key, so that a row of amounts that needed no
-- rate stays apart from one whose amounts did.
CREATE OR REPLACE MACRO profitability_month_facts_for(all_months, from_day, to_day) AS TABLE
WITH summed AS (
  SELECT * FROM (
    SELECT
      f.workspace_id,
      entry_month(f.entry_date) AS month,
      f.user_id,
      f.project_id,
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
    WHERE all_months
      OR f.entry_date BETWEEN from_day AND to_day
      -- A hash probe on (member, project) per fact of those days, the month checked per group.
      AND (f.user_id, f.project_id) IN (
        SELECT (user_id, project_id) FROM summary_dirty_fact_days
      )
    GROUP BY ALL
  ) g
  WHERE all_months
    OR (g.workspace_id, g.month, g.user_id, g.project_id) IN (
      SELECT (workspace_id, entry_month(entry_date), user_id, project_id) FROM summary_dirty_fact_days
    )
)
SELECT * FROM profitability_rollup_parts('summed');
