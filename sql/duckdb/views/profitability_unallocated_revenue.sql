-- Revenue no time entry explains (decisions 8, test/reference choice 41), per invoice currency,
-- native (never converted): the net of each line that names no time entry (e4_invoice_line_net,
-- rounded per line) on a live SENT or PAID invoice whose issue_date is in d_from..d_to (an
-- invoice without issue_date never is). A line naming any entry, even a deleted, running or
-- out-of-range one, is allocated.
-- Filters: `client_filter` by the invoice's client, `project_filter` by the line's project;
-- any `user_filter` gives no rows (such revenue belongs to nobody). Zero sums are left out.
CREATE OR REPLACE MACRO profitability_unallocated_revenue(ws, d_from, d_to, user_filter, project_filter, client_filter) AS TABLE
WITH unallocated_lines AS (
  SELECT
    i.currency,
    money_e4(l.amount) AS amount_e4,
    money_e4(i.subtotal) AS subtotal_e4,
    money_e4(i.subtotal) - money_e4(i.discount_amount) AS net_e4,
    -- Every stored currency is a known one; an unknown one is an error, never a guessed scale.
    unit_e4(coalesce(c.scale, error('unknown currency ' || i.currency))) AS unit_e4
  FROM invoices i
  JOIN invoice_lines l ON l.invoice_id = i.id
  LEFT JOIN currencies c ON c.code = i.currency
  WHERE i.workspace_id = ws
    AND l.workspace_id = ws
    AND i.deleted_at IS NULL
    AND i.status IN ('SENT', 'PAID')
    AND i.issue_date BETWEEN d_from AND d_to
    AND l.time_entry_id IS NULL
    AND user_filter IS NULL
    AND (client_filter IS NULL OR i.client_id = client_filter)
    AND (project_filter IS NULL OR l.project_id = project_filter)
)
SELECT currency, money_of_e4(sum(net_e4)) AS amount
FROM (
  SELECT currency, e4_invoice_line_net(amount_e4, net_e4, subtotal_e4, unit_e4) AS net_e4
  FROM unallocated_lines
)
GROUP BY currency
HAVING sum(net_e4) <> 0;
