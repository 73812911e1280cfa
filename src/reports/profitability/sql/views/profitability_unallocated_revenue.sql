-- Revenue no time entry explains (docs/contract.md, "Unallocated revenue and receipts";
-- test/reference choice 41), per invoice currency, native (never converted): the net of each line
-- that names no time entry (e4_invoice_line_net, rounded per line) on a live SENT or PAID invoice
-- whose issue_date is in d_from..d_to (an invoice without issue_date never is). A line naming any
-- entry, even a deleted, running or out-of-range one, is allocated. The nets per invoice and line
-- project are kept by the sync (invoice_unallocated_nets, from invoice_unallocated_nets_for): a
-- report reads the range's invoices and their few rows there, not millions of invoice lines.
-- Filters: `client_filter` by the invoice's client, `project_filter` by the line's project;
-- any `user_filter` gives no rows (such revenue belongs to nobody). Zero sums are left out.
CREATE OR REPLACE MACRO profitability_unallocated_revenue(ws, d_from, d_to, user_filter, project_filter, client_filter) AS TABLE
SELECT i.currency, money_of_e4(sum(n.net_e4)) AS amount
FROM invoices i
JOIN invoice_unallocated_nets n ON n.invoice_id = i.id
WHERE i.workspace_id = ws
  AND n.workspace_id = ws
  AND i.deleted_at IS NULL
  AND i.status IN ('SENT', 'PAID')
  AND i.issue_date BETWEEN d_from AND d_to
  AND user_filter IS NULL
  AND (client_filter IS NULL OR i.client_id = client_filter)
  AND (project_filter IS NULL OR n.project_id = project_filter)
GROUP BY i.currency
HAVING sum(n.net_e4) <> 0;
