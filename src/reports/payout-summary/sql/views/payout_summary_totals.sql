-- Team payout summary, the workspace-wide figures (docs/contract.md, "Summary totals"), one row for
-- workspace `ws`. `currency_filter` (NULL = all) narrows the last payment only: payees and
-- missing rates have no currency.
--   member_count       = live payees
--   missing_rate_count = payees with a payable entry (payee_unpaid_totals; is_payable: live,
--                        not running, duration > 0, on/after their start date, on no
--                        APPROVED bill; billable or not) that has no rate at its date
--   last_payment_*     = the latest live RECORDED payment by paid_date, then created_at,
--                        then id; its amount is in its own (transfer) currency
CREATE OR REPLACE MACRO payout_summary_totals(ws, currency_filter) AS TABLE
WITH last_payment AS (
  SELECT paid_date, amount, currency
  FROM team_payments
  WHERE workspace_id = ws
    AND status = 'RECORDED'
    AND deleted_at IS NULL
    AND (currency_filter IS NULL OR currency = currency_filter)
  ORDER BY paid_date DESC, created_at DESC, id DESC
  LIMIT 1
)
SELECT
  (SELECT count(*) FROM payees WHERE workspace_id = ws AND deleted_at IS NULL) AS member_count,
  (
    SELECT count(DISTINCT payee_id)
    FROM payee_unpaid_totals
    WHERE workspace_id = ws AND currency IS NULL
  ) AS missing_rate_count,
  lp.paid_date AS last_payment_date,
  lp.amount AS last_payment_amount,
  lp.currency AS last_payment_currency
FROM (SELECT 1) AS one_row
LEFT JOIN last_payment lp ON true;
