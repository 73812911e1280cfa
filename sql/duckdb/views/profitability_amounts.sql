-- Every amount a profitability report adds up (decisions 8 and 9), for the entries of
-- profitability_entries: one row per entry (or invoice line) and metric, in the amount's own
-- currency, rounded half away from zero to that currency once, with the date its FX rate is
-- taken at (fx_date). amount_e4 is an exact count of 10^-4 (see macros.sql).
--   approvedCost  per TIME line of a live APPROVED bill B that names the entry: the line's
--                 amount, in B's currency (test/reference choice 29: TIME lines only)
--   paid          per such line: line amount x min(B.amount_paid / B.total, 1), 0 when B.total
--                 is 0
--   estimatedCost per entry on no such line that has a pay rate (profitability_entry_rates):
--                 duration x rate / 3600, in the rate's currency (time_cost's rule)
--   billedNet     per line of a live SENT or PAID invoice I that names the entry (any kind; the
--                 entry's own invoice_id is not used, choice 30): the line's net of I's
--                 discount, tax never included (e4_invoice_line_net)
--   collectedNet  per such line: that rounded net x min(I.amount_paid / I.total, 1), 0 when
--                 I.total is 0
--   fx_date       = entry_date for the costs and paid, I.issue_date for billedNet, collectedNet
-- entry_month is the first day of the month of the entry the amount belongs to (the month
-- cells the sync keeps are summed per month of work).
-- Plus, with metric NULL, one row per member, project and month for what is counted per entry:
--   missing_pay_rate = one of its entries is on no such bill line and has no pay rate
--   unbilled_seconds = the durations of its billable entries on no line of a live SENT or PAID
--                      invoice (clientUnbilledSeconds, choice 31)
-- These rows also make every member's and project's row exist, with or without amounts.
--
-- B's total and amount_paid follow team_bill_figures (decisions 7: total = TIME and EXPENSE
-- lines + ADJUSTMENT lines, amount_paid = allocations of live RECORDED payments), each sum
-- rounded to the bill currency (choice 9), but only for the bills of the range's entries: that
-- view sums every line of the workspace, and DuckDB cannot push a set of bills into it.
CREATE OR REPLACE MACRO profitability_amounts(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := NULL, skip_to := NULL, dirty := false) AS TABLE
WITH entries AS MATERIALIZED (
  FROM profitability_entry_rates(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := skip_from, skip_to := skip_to, dirty := dirty)
),
-- The bill and invoice lines of the range's entries, each joined on its own to the plain
-- entries scan, so that DuckDB hashes the entries and streams the millions of lines past them.
-- Ids are unique across workspaces, so a line naming an entry of `ws` is a line of `ws`; a
-- filter on the lines' workspace_id would only make them look the smaller side.
entry_bill_lines AS MATERIALIZED (
  SELECT e.time_entry_id, e.user_id, e.project_id, e.entry_date, l.bill_id, l.amount
  FROM team_bill_lines l
  JOIN profitability_entries(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := skip_from, skip_to := skip_to, dirty := dirty) e
    ON e.time_entry_id = l.time_entry_id
  WHERE l.kind = 'TIME'
),
entry_invoice_lines AS MATERIALIZED (
  SELECT e.time_entry_id, e.user_id, e.project_id, e.entry_date, l.invoice_id, l.amount
  FROM invoice_lines l
  JOIN profitability_entries(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := skip_from, skip_to := skip_to, dirty := dirty) e
    ON e.time_entry_id = l.time_entry_id
),
approved_time_lines AS MATERIALIZED (
  SELECT
    l.time_entry_id, l.user_id, l.project_id, l.entry_date, l.bill_id, b.currency,
    money_e4(l.amount) AS amount_e4,
    -- Every stored currency is a known one; an unknown one is an error, never a guessed scale.
    unit_e4(coalesce(c.scale, error('unknown currency ' || b.currency))) AS unit_e4
  FROM entry_bill_lines l
  JOIN team_bills b ON b.id = l.bill_id
  LEFT JOIN currencies c ON c.code = b.currency
  WHERE b.workspace_id = ws AND b.status = 'APPROVED' AND b.deleted_at IS NULL
),
bill_line_sums AS (
  SELECT
    bill_id,
    sum(amount) FILTER (WHERE kind IN ('TIME', 'EXPENSE')) AS subtotal,
    sum(amount) FILTER (WHERE kind = 'ADJUSTMENT') AS adjustment_total
  FROM team_bill_lines
  WHERE workspace_id = ws AND bill_id IN (SELECT bill_id FROM approved_time_lines)
  GROUP BY bill_id
),
bill_payments AS (
  SELECT a.bill_id, sum(a.amount) AS amount_paid
  FROM team_payment_allocations a
  JOIN team_payments p ON p.id = a.payment_id
  WHERE a.workspace_id = ws
    AND p.workspace_id = ws
    AND p.status = 'RECORDED'
    AND p.deleted_at IS NULL
    AND a.bill_id IN (SELECT bill_id FROM approved_time_lines)
  GROUP BY a.bill_id
),
bills AS (
  SELECT
    s.bill_id,
    e4_round(s.subtotal_e4, s.unit_e4) + e4_round(s.adjustment_e4, s.unit_e4) AS total_e4,
    e4_round(s.paid_e4, s.unit_e4) AS paid_e4
  FROM (
    SELECT
      t.bill_id,
      -- Sums of amounts (DECIMAL(38,4)): their e4 counts can pass 64 bits.
      money_to_e4(coalesce(t.subtotal, 0)) AS subtotal_e4,
      money_to_e4(coalesce(t.adjustment_total, 0)) AS adjustment_e4,
      money_to_e4(coalesce(p.amount_paid, 0)) AS paid_e4,
      unit_e4(coalesce(c.scale, error('unknown currency ' || b.currency))) AS unit_e4
    FROM bill_line_sums t
    JOIN team_bills b ON b.id = t.bill_id
    LEFT JOIN bill_payments p ON p.bill_id = t.bill_id
    LEFT JOIN currencies c ON c.code = b.currency
  ) s
),
bill_amounts AS (
  SELECT
    l.user_id,
    l.project_id,
    l.entry_date,
    l.currency,
    e4_round(l.amount_e4, l.unit_e4) AS approved_e4,
    e4_share_capped(l.amount_e4, b.paid_e4, b.total_e4, l.unit_e4) AS paid_e4
  FROM approved_time_lines l
  JOIN bills b ON b.bill_id = l.bill_id
),
sent_invoices AS (
  SELECT
    i.id,
    i.currency,
    i.issue_date,
    money_e4(i.subtotal) AS subtotal_e4,
    money_e4(i.subtotal) - money_e4(i.discount_amount) AS net_e4,
    money_e4(i.total) AS total_e4,
    money_e4(i.amount_paid) AS paid_e4,
    unit_e4(coalesce(c.scale, error('unknown currency ' || i.currency))) AS unit_e4
  FROM invoices i
  LEFT JOIN currencies c ON c.code = i.currency
  WHERE i.workspace_id = ws AND i.deleted_at IS NULL AND i.status IN ('SENT', 'PAID')
),
invoiced_lines AS MATERIALIZED (
  SELECT
    il.*,
    e4_invoice_line_net(il.amount_e4, il.invoice_net_e4, il.subtotal_e4, il.unit_e4) AS net_e4
  FROM (
    SELECT
      l.time_entry_id,
      l.user_id,
      l.project_id,
      l.entry_date,
      i.currency,
      i.issue_date,
      i.subtotal_e4,
      i.net_e4 AS invoice_net_e4,
      i.total_e4,
      i.paid_e4,
      i.unit_e4,
      money_e4(l.amount) AS amount_e4
    FROM entry_invoice_lines l
    JOIN sent_invoices i ON i.id = l.invoice_id
  ) il
),
flagged_entries AS MATERIALIZED (
  SELECT
    e.*,
    e.time_entry_id IN (SELECT time_entry_id FROM approved_time_lines) AS on_approved_bill,
    e.time_entry_id IN (SELECT time_entry_id FROM invoiced_lines) AS on_sent_invoice
  FROM entries e
),
entry_facts AS (
  SELECT
    user_id,
    project_id,
    entry_month(entry_date) AS entry_month,
    bool_or(NOT on_approved_bill AND rate_e4 IS NULL) AS missing_pay_rate,
    sum(CASE WHEN billable AND NOT on_sent_invoice THEN duration_seconds ELSE 0 END)
      AS unbilled_seconds
  FROM flagged_entries
  GROUP BY user_id, project_id, entry_month(entry_date)
)
SELECT
  user_id, project_id, entry_month(entry_date) AS entry_month, 'approvedCost' AS metric,
  currency, entry_date AS fx_date, approved_e4 AS amount_e4
FROM bill_amounts
UNION ALL
SELECT user_id, project_id, entry_month(entry_date), 'paid', currency, entry_date, paid_e4
FROM bill_amounts
UNION ALL
SELECT
  user_id, project_id, entry_month(entry_date), 'estimatedCost', rate_currency, entry_date,
  e4_share(CAST(duration_seconds AS BIGINT), rate_e4, 3600, rate_unit_e4)
FROM flagged_entries
WHERE rate_e4 IS NOT NULL AND NOT on_approved_bill
UNION ALL
SELECT user_id, project_id, entry_month(entry_date), 'billedNet', currency, issue_date, net_e4
FROM invoiced_lines
UNION ALL
SELECT
  user_id, project_id, entry_month(entry_date), 'collectedNet', currency, issue_date,
  e4_share_capped(net_e4, paid_e4, total_e4, unit_e4)
FROM invoiced_lines
UNION ALL BY NAME
SELECT user_id, project_id, entry_month, missing_pay_rate, unbilled_seconds
FROM entry_facts;
