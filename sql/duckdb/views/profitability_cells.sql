-- The converted amounts of profitability_converted summed per month of work, member, project,
-- metric, currency and FX rate used: what a report adds up, in a form that adds up again over
-- months (sums, and flags that are true when any amount's is). The sync keeps these cells per
-- month in profitability_month_cells (src/summaries/); a report reads whole months from there
-- and computes only the days of partly covered months here (profitability_report).
--   native_e4    = the amounts in their own currency
--   converted_e4 = in the base currency (NULL when an amount had no FX rate)
--   missing_e4   = the native sum of the amounts left unconverted
-- each sum in 64 bits: a cell beyond them is several rows of the same key (e4_parts, e4_part), which
-- add up to it.
CREATE OR REPLACE MACRO profitability_cells(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := NULL, skip_to := NULL, dirty := false) AS TABLE
WITH sums AS (
  SELECT
    entry_month AS month,
    user_id,
    project_id,
    metric,
    currency,
    fx_rate_id,
    sum(amount_e4) AS native_e4,
    sum(converted_e4) AS converted_e4,
    sum(amount_e4) FILTER (WHERE fx_missing) AS missing_e4,
    coalesce(bool_or(fx_missing), false) AS fx_missing,
    coalesce(bool_or(needs_fx), false) AS needs_fx,
    coalesce(bool_or(missing_pay_rate), false) AS missing_pay_rate,
    coalesce(sum(unbilled_seconds), 0) AS unbilled_seconds
  FROM profitability_converted(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := skip_from, skip_to := skip_to, dirty := dirty)
  GROUP BY entry_month, user_id, project_id, metric, currency, fx_rate_id
),
-- Each cell in as many rows as its sums need (nearly always one).
parted AS (
  SELECT *, unnest(range(parts)) AS part
  FROM (SELECT *, e4_parts(native_e4, converted_e4, missing_e4) AS parts FROM sums)
)
SELECT
  month, user_id, project_id, metric, currency, fx_rate_id,
  e4_part(native_e4, parts, part) AS native_e4,
  e4_part(converted_e4, parts, part) AS converted_e4,
  e4_part(missing_e4, parts, part) AS missing_e4,
  CASE WHEN part = 0 THEN CAST(unbilled_seconds AS BIGINT) ELSE 0 END AS unbilled_seconds,
  fx_missing, needs_fx, missing_pay_rate
FROM parted;
