-- The converted amounts of profitability_converted summed per month of work, member, project,
-- metric, currency and FX rate used: what a report adds up, in a form that adds up again over
-- months (sums, and flags that are true when any amount's is). The sync keeps these cells per
-- month in profitability_month_cells (src/summaries/); a report reads whole months from there
-- and computes only the days of partly covered months here (profitability_report).
--   native_e4    = the amounts in their own currency
--   converted_e4 = in the base currency (NULL when an amount had no FX rate)
--   missing_e4   = the native sum of the amounts left unconverted
CREATE OR REPLACE MACRO profitability_cells(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := NULL, skip_to := NULL, dirty := false) AS TABLE
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
GROUP BY entry_month, user_id, project_id, metric, currency, fx_rate_id;

-- The first day of the first whole month from d_from, and the last day of the last whole month
-- up to d_to.
CREATE OR REPLACE MACRO profitability_first_whole(d_from) AS
  CASE
    WHEN day(d_from) = 1 THEN d_from
    ELSE CAST(date_trunc('month', d_from) + INTERVAL 1 MONTH AS DATE)
  END;
CREATE OR REPLACE MACRO profitability_last_whole(d_to) AS
  CASE
    WHEN d_to = last_day(d_to) THEN d_to
    ELSE CAST(date_trunc('month', d_to) - INTERVAL 1 DAY AS DATE)
  END;

-- The whole months of d_from..d_to, as the first day of the first and the last day of the
-- last; NULL when no month is whole.
CREATE OR REPLACE MACRO profitability_whole_from(d_from, d_to) AS
  CASE
    WHEN profitability_first_whole(d_from) <= profitability_last_whole(d_to)
      THEN profitability_first_whole(d_from)
  END;
CREATE OR REPLACE MACRO profitability_whole_to(d_from, d_to) AS
  CASE
    WHEN profitability_first_whole(d_from) <= profitability_last_whole(d_to)
      THEN profitability_last_whole(d_to)
  END;
