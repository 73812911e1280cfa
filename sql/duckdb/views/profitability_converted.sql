-- The amounts of profitability_amounts converted to the workspace's base currency (decisions 9,
-- test/reference choices 32-33). An amount dated D in currency C takes the live C -> base rate
-- with the latest effective_from <= D (that direction only: no inverse, no triangulation), is
-- multiplied at the rate's full precision and rounded half away from zero to the base
-- currency (e4_convert); the report sums these rounded figures.
--   needs_fx     = a non-zero amount in another currency than the base (an amount of 0 needs no
--                  rate, is never missing and never marks a rate used)
--   converted_e4 = the amount itself when it needs no rate; amount x rate, rounded, when a rate
--                  was found; NULL when none was (an invoice without issue_date finds none)
--   fx_rate_id   = the rate that converted it
--   fx_missing   = needs_fx without a rate: left out of the converted figures, and reported
-- Rows with metric NULL (per-entry facts) pass through.
--
-- The rates are looked up (ASOF JOIN) for every currency that has a rate into the base and
-- every day an amount can be dated (the range's days, for the costs, and the issue dates of
-- SENT and PAID invoices): a few thousand pairs, looked up once, instead of once per amount.
CREATE OR REPLACE MACRO profitability_converted(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := NULL, skip_to := NULL, dirty := false) AS TABLE
WITH base AS (
  SELECT
    w.base_currency,
    unit_e4(coalesce(c.scale, error('unknown currency ' || w.base_currency))) AS base_unit_e4
  FROM workspaces w
  LEFT JOIN currencies c ON c.code = w.base_currency
  WHERE w.id = ws
),
rates_to_base AS (
  SELECT r.id, r.from_currency, r.effective_from, rate_e10(r.rate) AS rate_e10
  FROM fx_rates_live r
  JOIN base b ON r.to_currency = b.base_currency
  WHERE r.workspace_id = ws
),
amount_days AS (
  SELECT CAST(day AS DATE) AS fx_date
  FROM generate_series(d_from, d_to, INTERVAL 1 DAY) AS days(day)
  UNION
  SELECT issue_date
  FROM invoices
  WHERE workspace_id = ws
    AND deleted_at IS NULL
    AND status IN ('SENT', 'PAID')
    AND issue_date IS NOT NULL
),
day_rates AS (
  SELECT c.from_currency AS fx_currency, d.fx_date, r.id AS fx_rate_id, r.rate_e10
  FROM (SELECT DISTINCT from_currency FROM rates_to_base) c
  CROSS JOIN amount_days d
  ASOF JOIN rates_to_base r ON r.from_currency = c.from_currency AND d.fx_date >= r.effective_from
),
amounts AS (
  SELECT
    a.*,
    b.base_unit_e4,
    -- The currency to look a rate up for; NULL when the amount needs none.
    CASE WHEN a.amount_e4 <> 0 AND a.currency <> b.base_currency THEN a.currency END AS fx_currency
  FROM profitability_amounts(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := skip_from, skip_to := skip_to, dirty := dirty) a
  CROSS JOIN base b
)
SELECT
  a.user_id,
  a.project_id,
  a.entry_month,
  a.metric,
  a.currency,
  a.amount_e4,
  a.missing_pay_rate,
  a.unbilled_seconds,
  a.fx_currency IS NOT NULL AS needs_fx,
  dr.fx_rate_id,
  CASE
    WHEN a.fx_currency IS NULL THEN a.amount_e4
    WHEN dr.fx_rate_id IS NOT NULL THEN e4_convert(a.amount_e4, dr.rate_e10, a.base_unit_e4)
  END AS converted_e4,
  a.fx_currency IS NOT NULL AND dr.fx_rate_id IS NULL AS fx_missing
FROM amounts a
LEFT JOIN day_rates dr ON dr.fx_currency = a.fx_currency AND dr.fx_date = a.fx_date;
