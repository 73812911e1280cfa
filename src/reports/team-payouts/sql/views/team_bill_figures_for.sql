-- The derived figures of live team bills (docs/contract.md, "Bill amounts"). The snapshot and the
-- operational store keep lines and allocations only; the sync keeps the table
-- team_bill_figures equal to team_bill_figures_for(true), refreshing
-- team_bill_figures_for(false) (the bills in summary_dirty_bills) as they change.
--   subtotal         = sum of TIME and EXPENSE lines
--   adjustment_total = sum of ADJUSTMENT lines
--   total            = subtotal + adjustment_total
--   amount_paid      = allocations of RECORDED (not reversed, not deleted) payments
--   remaining        = max(total - amount_paid, 0), and 0 on a VOID bill
--   payment_status   = PAID when total > 0 and amount_paid >= total,
--                      PARTIALLY_PAID when amount_paid > 0, else UNPAID (values:
--                      docs/contract.md, "Value sets")
-- Sums of DECIMAL(18,4) amounts are DECIMAL(38,4): a bill of two lines of 90,000,000,000,000
-- has a total beyond DECIMAL(18,4), which answered 500 when it was cast back
-- (docs/contract.md, "Money and rounding": exact decimals, never a float).
CREATE OR REPLACE MACRO team_bill_figures_for(all_bills) AS TABLE
WITH bills AS (
  SELECT *
  FROM team_bills
  WHERE deleted_at IS NULL
    AND (all_bills OR id IN (SELECT bill_id FROM summary_dirty_bills))
),
line_sums AS (
  SELECT
    workspace_id,
    bill_id,
    sum(amount) FILTER (WHERE kind IN ('TIME', 'EXPENSE')) AS subtotal,
    sum(amount) FILTER (WHERE kind = 'ADJUSTMENT') AS adjustment_total
  FROM team_bill_lines
  WHERE all_bills OR bill_id IN (SELECT bill_id FROM summary_dirty_bills)
  GROUP BY workspace_id, bill_id
),
recorded_allocations AS (
  SELECT a.workspace_id, a.bill_id, sum(a.amount) AS amount_paid
  FROM team_payment_allocations a
  JOIN team_payments p ON p.workspace_id = a.workspace_id AND p.id = a.payment_id
  WHERE p.status = 'RECORDED' AND p.deleted_at IS NULL
    AND (all_bills OR a.bill_id IN (SELECT bill_id FROM summary_dirty_bills))
  GROUP BY a.workspace_id, a.bill_id
),
bill_amounts AS (
  SELECT
    b.id AS bill_id,
    b.workspace_id,
    b.payee_id,
    b.status,
    b.currency,
    b.due_date,
    CAST(coalesce(l.subtotal, 0) AS DECIMAL(38, 4)) AS subtotal,
    CAST(coalesce(l.adjustment_total, 0) AS DECIMAL(38, 4)) AS adjustment_total,
    CAST(coalesce(l.subtotal, 0) + coalesce(l.adjustment_total, 0) AS DECIMAL(38, 4)) AS total,
    CAST(coalesce(r.amount_paid, 0) AS DECIMAL(38, 4)) AS amount_paid
  FROM bills b
  LEFT JOIN line_sums l ON l.workspace_id = b.workspace_id AND l.bill_id = b.id
  LEFT JOIN recorded_allocations r ON r.workspace_id = b.workspace_id AND r.bill_id = b.id
)
SELECT
  bill_id,
  workspace_id,
  payee_id,
  status,
  currency,
  due_date,
  subtotal,
  adjustment_total,
  total,
  amount_paid,
  CASE
    WHEN status = 'VOID' THEN CAST(0 AS DECIMAL(38, 4))
    ELSE CAST(greatest(total - amount_paid, 0) AS DECIMAL(38, 4))
  END AS remaining,
  CASE
    WHEN total > 0 AND amount_paid >= total THEN 'PAID'
    WHEN amount_paid > 0 THEN 'PARTIALLY_PAID'
    ELSE 'UNPAID'
  END AS payment_status
FROM bill_amounts;
