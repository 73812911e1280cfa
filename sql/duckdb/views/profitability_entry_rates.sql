-- The entries of profitability_entries with their pay rate (decisions 8, "pay rate";
-- test/reference choices 13 and 28): the rate of the user's live payee (at most one: one payee
-- per user) with the latest effective_from <= entry_date, only when entry_date is on/after the
-- payee's start_date (no start date: no limit). rate_e4 is that hourly rate as a count of
-- 10^-4 (see macros.sql), rate_currency its currency and rate_unit_e4 that currency's minor
-- unit; all three NULL without a rate.
-- The rate is looked up once per payee and day worked, not once per entry.
CREATE OR REPLACE MACRO profitability_entry_rates(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := NULL, skip_to := NULL, dirty := false) AS TABLE
WITH entries AS (
  FROM profitability_entries(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := skip_from, skip_to := skip_to, dirty := dirty)
),
live_payees AS (
  SELECT id AS payee_id, user_id, start_date
  FROM payees
  WHERE workspace_id = ws AND deleted_at IS NULL
),
-- Each live rate is in force from its effective_from until the next one of its payee.
rate_periods AS (
  SELECT
    payee_id,
    effective_from,
    lead(effective_from) OVER (PARTITION BY payee_id ORDER BY effective_from) AS next_from,
    hourly_rate,
    currency
  FROM payee_rates
  WHERE workspace_id = ws AND deleted_at IS NULL
),
payee_days AS (
  SELECT DISTINCT p.payee_id, e.entry_date
  FROM entries e
  JOIN live_payees p ON p.user_id = e.user_id
  WHERE p.start_date IS NULL OR e.entry_date >= p.start_date
),
day_rates AS (
  SELECT
    d.payee_id,
    d.entry_date,
    money_e4(r.hourly_rate) AS rate_e4,
    r.currency AS rate_currency,
    -- Every stored currency is a known one (import and writes refuse others); an unknown one
    -- is an error here, never an amount at a guessed scale.
    unit_e4(coalesce(c.scale, error('unknown currency ' || r.currency))) AS rate_unit_e4
  FROM payee_days d
  JOIN rate_periods r
    ON r.payee_id = d.payee_id
    AND d.entry_date >= r.effective_from
    AND (r.next_from IS NULL OR d.entry_date < r.next_from)
  LEFT JOIN currencies c ON c.code = r.currency
)
SELECT e.*, p.payee_id, dr.rate_e4, dr.rate_currency, dr.rate_unit_e4
FROM entries e
LEFT JOIN live_payees p ON p.user_id = e.user_id
LEFT JOIN day_rates dr ON dr.payee_id = p.payee_id AND dr.entry_date = e.entry_date;
