-- Team payout summary, one row per currency (decisions 7, "Summary per currency"), for
-- workspace `ws`. `today` is the caller's date in the workspace time zone, passed in rather
-- than read from the clock so the figure is the same for every replica and every test.
--
-- A currency is listed when it has a default-scope unpaid item, an APPROVED bill or a
-- payee credit:
--   eligible_seconds, unbilled_from, unbilled_to, accrued: over default-scope (billable)
--                  unpaid-time items in that currency
--   approved     = totals of APPROVED bills
--   paid         = their amount_paid
--   outstanding  = their remaining
--   overdue      = remaining of those with due_date before `today` (no due date: not overdue)
--   credit       = remaining of the live credits of live payees
-- Approved bills count whether or not their payee was later deleted: a bill is a financial
-- document that the bill list still shows. Credits belong to the payee record, so they
-- count only while the payee does.
-- Money is DECIMAL(38,4), the sums' type (they can pass DECIMAL(18,4)); the API formats it to
-- the currency's scale.
CREATE OR REPLACE MACRO payout_summary_currencies(ws, today) AS TABLE
-- The unpaid items' figures come from payee_unpaid_totals (per payee, kept by the sync), whose
-- billable rows with a rate are exactly the default-section items of unpaid_time_items.
WITH accrued AS (
  SELECT
    currency,
    sum(seconds) AS eligible_seconds,
    min(first_date) AS unbilled_from,
    max(last_date) AS unbilled_to,
    -- An item without an amount (unknown currency) makes the sum NULL, not smaller.
    CASE WHEN sum(unpriced) = 0 THEN sum(amount) END AS accrued
  FROM payee_unpaid_totals
  WHERE workspace_id = ws AND billable AND currency IS NOT NULL
  GROUP BY currency
),
approved_bills AS (
  SELECT
    currency,
    sum(total) AS approved,
    sum(amount_paid) AS paid,
    sum(remaining) AS outstanding,
    coalesce(sum(remaining) FILTER (WHERE due_date < today), 0) AS overdue
  FROM team_bill_figures
  WHERE workspace_id = ws AND status = 'APPROVED'
  GROUP BY currency
),
credits AS (
  SELECT c.currency, sum(c.remaining) AS credit
  FROM payee_credits c
  JOIN payees p ON p.workspace_id = c.workspace_id AND p.id = c.payee_id
  WHERE c.workspace_id = ws AND c.deleted_at IS NULL AND p.deleted_at IS NULL
  GROUP BY c.currency
),
listed AS (
  SELECT currency FROM accrued
  UNION
  SELECT currency FROM approved_bills
  UNION
  SELECT currency FROM credits
)
SELECT
  l.currency,
  CAST(coalesce(a.eligible_seconds, 0) AS BIGINT) AS eligible_seconds,
  a.unbilled_from,
  a.unbilled_to,
  CAST(CASE WHEN a.currency IS NULL THEN 0 ELSE a.accrued END AS DECIMAL(38, 4)) AS accrued,
  CAST(coalesce(b.approved, 0) AS DECIMAL(38, 4)) AS approved,
  CAST(coalesce(b.paid, 0) AS DECIMAL(38, 4)) AS paid,
  CAST(coalesce(b.outstanding, 0) AS DECIMAL(38, 4)) AS outstanding,
  CAST(coalesce(b.overdue, 0) AS DECIMAL(38, 4)) AS overdue,
  CAST(coalesce(c.credit, 0) AS DECIMAL(38, 4)) AS credit
FROM listed l
LEFT JOIN accrued a ON a.currency = l.currency
LEFT JOIN approved_bills b ON b.currency = l.currency
LEFT JOIN credits c ON c.currency = l.currency
ORDER BY l.currency;
