-- Money received beyond what was invoiced (docs/contract.md, "Unallocated revenue and receipts";
-- test/reference choice 42), per invoice currency, native: over live invoices with issue_date in
-- d_from..d_to, a SENT or PAID invoice adds amount_paid - total when that is positive, a CANCELLED
-- one its whole amount_paid, a DRAFT one nothing. `client_filter` narrows by the invoice's client;
-- a receipt belongs to no project or member, so any `project_filter` or `user_filter` gives no
-- rows. Zero sums are left out.
CREATE OR REPLACE MACRO profitability_unreconciled_receipts(ws, d_from, d_to, user_filter, project_filter, client_filter) AS TABLE
WITH receipts AS (
  SELECT
    currency,
    CASE
      WHEN status IN ('SENT', 'PAID') THEN greatest(amount_paid - total, 0)
      WHEN status = 'CANCELLED' THEN amount_paid
      ELSE 0
    END AS amount
  FROM invoices
  WHERE workspace_id = ws
    AND deleted_at IS NULL
    AND issue_date BETWEEN d_from AND d_to
    AND user_filter IS NULL
    AND project_filter IS NULL
    AND (client_filter IS NULL OR client_id = client_filter)
)
SELECT currency, sum(amount) AS amount
FROM receipts
GROUP BY currency
HAVING sum(amount) <> 0;
