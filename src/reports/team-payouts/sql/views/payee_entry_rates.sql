-- Every live time entry of a live payee (entry.user_id = payee.user_id in the same
-- workspace: docs/contract.md, "Unpaid-time item"), with the pay rate in force on its entry date
-- and the flags the team-payout rules test. One row per entry; running and zero-length entries are
-- kept and flagged, so unpaid time, the summary and profitability all start from this one place.
--
-- Rate (docs/contract.md, "Unpaid-time item" and "Costs"): the payee's live rate with the latest
-- effective_from <= entry_date. ASOF LEFT JOIN picks exactly that row (payee_rates allows one live
-- rate per payee and date); rate_id is NULL when no rate had started by the entry's date.
--
-- is_payable: the work is owed but not yet on an APPROVED bill — not running, duration > 0,
-- entry_date on/after the payee's start_date (no start_date: no restriction) and not on a
-- line of an APPROVED live bill (entries on DRAFT or VOID bills stay unpaid). Priced or
-- not, billable or not: with a rate it is an unpaid-time item, without one it counts
-- towards missingRateCount (docs/contract.md, "Summary totals").
--
-- For every entry (all_entries), or only for the entries in summary_dirty_entries: the sync
-- keeps the table payee_entry_pay equal to the payable rows of the first by refreshing the
-- second (src/reports/team-payouts/team-payouts.derived.ts). first_day and last_day, when
-- given, keep only the entries of those days (the first build, a range of months at a time:
-- time_entries lies in about date order, so the range reads few of its row groups).
CREATE OR REPLACE MACRO payee_entry_rates_for(all_entries, first_day := NULL, last_day := NULL) AS TABLE
WITH payee_entries AS (
  SELECT
    e.workspace_id,
    p.id AS payee_id,
    p.name AS payee_name,
    p.start_date AS payee_start_date,
    e.id AS time_entry_id,
    e.user_id,
    e.project_id,
    e.task_id,
    e.entry_date,
    e.duration_seconds,
    e.billable,
    e.is_running,
    e.note,
    e.created_at
  FROM time_entries e
  JOIN payees p ON p.workspace_id = e.workspace_id AND p.user_id = e.user_id
  WHERE e.deleted_at IS NULL AND p.deleted_at IS NULL
    AND (all_entries OR e.id IN (SELECT time_entry_id FROM summary_dirty_entries))
    AND (first_day IS NULL OR e.entry_date BETWEEN first_day AND last_day)
),
live_rates AS (
  SELECT workspace_id, payee_id, id, effective_from, hourly_rate, currency
  FROM payee_rates
  WHERE deleted_at IS NULL
),
-- docs/contract.md, "Unpaid-time item", says "a line of an APPROVED bill", of any kind, that
-- names the entry.
entries_on_approved_bills AS (
  SELECT DISTINCT l.workspace_id, l.time_entry_id
  FROM team_bill_lines l
  JOIN team_bills b ON b.workspace_id = l.workspace_id AND b.id = l.bill_id
  WHERE b.status = 'APPROVED' AND b.deleted_at IS NULL AND l.time_entry_id IS NOT NULL
    AND (all_entries OR l.time_entry_id IN (SELECT time_entry_id FROM summary_dirty_entries))
    AND (first_day IS NULL OR l.time_entry_id IN (
      SELECT id FROM time_entries WHERE entry_date BETWEEN first_day AND last_day))
),
flagged AS (
  SELECT
    pe.*,
    r.id AS rate_id,
    r.effective_from AS rate_effective_from,
    r.hourly_rate,
    r.currency AS rate_currency,
    currency_key(r.currency) AS rate_currency_key,
    (pe.payee_start_date IS NULL OR pe.entry_date >= pe.payee_start_date) AS on_or_after_start,
    (a.time_entry_id IS NOT NULL) AS on_approved_bill
  FROM payee_entries pe
  ASOF LEFT JOIN live_rates r
    ON r.workspace_id = pe.workspace_id
    AND r.payee_id = pe.payee_id
    AND pe.entry_date >= r.effective_from
  LEFT JOIN entries_on_approved_bills a
    ON a.workspace_id = pe.workspace_id AND a.time_entry_id = pe.time_entry_id
)
SELECT
  *,
  (NOT is_running AND duration_seconds > 0 AND on_or_after_start AND NOT on_approved_bill) AS is_payable
FROM flagged;

CREATE OR REPLACE VIEW payee_entry_rates AS FROM payee_entry_rates_for(true);
