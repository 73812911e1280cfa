-- The priced facts of workspace `ws`'s time entries in fact_input_entries
-- (docs/contract.md, "Profitability" and "FX conversion"): what every entry a profitability report
-- counts adds to it, priced and converted once, so that a report of any range only sums rows. The
-- caller fills fact_input_entries with live, stopped entries, and fact_input_bill_lines and
-- fact_input_invoice_lines with their TIME bill lines and invoice lines
-- (src/reports/profitability/profitability.derived.ts); bills come from team_bill_figures, which
-- the team-payout part refreshes first (src/cli/derived-tables.ts).
--
-- One row per live, stopped entry and item number k: the entry's k-th cost item beside its
-- k-th revenue item (k from 1; an entry with neither has one row, k = 1, without amounts).
--   cost items     its TIME lines on live APPROVED bills (approved_e4, paid_e4, in the bill's
--                  currency), by line id; else, when it has a pay rate, its estimated cost
--                  (estimated_e4, in the rate's currency)
--   revenue items  its lines on live SENT or PAID invoices (billed_e4, collected_e4, in the
--                  invoice's currency), by line id
-- Each amount is rounded to its currency once (as profitability_amounts rounds it), then
-- converted to the base currency with the rate of its date (costs: entry_date; revenue: the
-- invoice's issue_date) and rounded again (as profitability_converted does): *_b4. A converted
-- figure is NULL when its amount is NULL (no such item) or had no FX rate: an amount that is
-- set and has no converted figure is missing FX. cost_rate_id and revenue_rate_id are the rates
-- that converted a non-zero amount of the side; cost_needs_fx and revenue_needs_fx say that a
-- non-zero amount of the side needed a rate (found or not).
-- missing_pay_rate and unbilled_seconds describe the entry, on its row k = 1 only:
--   missing_pay_rate = no approved TIME line and no pay rate
--   unbilled_seconds = its duration when billable and on no line of a SENT or PAID invoice
-- Amounts are counts of 10^-4 (macros.sql). A row whose amounts do not all fit 64 bits is
-- several rows (part 0 to n - 1) that add up to it (e4_parts_of, e4_part); the entry's facts
-- are on part 0.
CREATE OR REPLACE MACRO profitability_facts_for(ws) AS TABLE
WITH entries AS MATERIALIZED (
  SELECT time_entry_id, user_id, project_id, entry_date, duration_seconds, billable
  FROM fact_input_entries
  WHERE workspace_id = ws
),
base AS (
  SELECT
    w.base_currency,
    unit_e4(coalesce(c.scale, error('unknown currency ' || w.base_currency))) AS base_unit_e4
  FROM workspaces w
  LEFT JOIN currencies c ON c.code = w.base_currency
  WHERE w.id = ws
),
live_payees AS (
  SELECT id AS payee_id, user_id, start_date
  FROM payees
  WHERE workspace_id = ws AND deleted_at IS NULL
),
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
-- The pay rate is looked up once per payee and day worked, not once per entry.
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
    unit_e4(coalesce(c.scale, error('unknown currency ' || r.currency))) AS rate_unit_e4
  FROM payee_days d
  JOIN rate_periods r
    ON r.payee_id = d.payee_id
    AND d.entry_date >= r.effective_from
    AND (r.next_from IS NULL OR d.entry_date < r.next_from)
  LEFT JOIN currencies c ON c.code = r.currency
),
entry_rates AS (
  SELECT e.time_entry_id, dr.rate_e4, dr.rate_currency, dr.rate_unit_e4
  FROM entries e
  JOIN live_payees p ON p.user_id = e.user_id
  JOIN day_rates dr ON dr.payee_id = p.payee_id AND dr.entry_date = e.entry_date
),
approved_lines AS MATERIALIZED (
  SELECT
    l.line_id,
    l.time_entry_id,
    l.bill_id,
    b.currency,
    money_e4(l.amount) AS amount_e4,
    unit_e4(coalesce(c.scale, error('unknown currency ' || b.currency))) AS unit_e4
  FROM fact_input_bill_lines l
  JOIN entries e ON e.time_entry_id = l.time_entry_id
  JOIN team_bill_figures b ON b.bill_id = l.bill_id
  LEFT JOIN currencies c ON c.code = b.currency
  WHERE b.workspace_id = ws AND b.status = 'APPROVED'
),
-- B's total and amount paid as team_bill_figures has them (docs/contract.md, "Bill amounts"),
-- rounded to its currency.
bills AS (
  SELECT
    f.bill_id,
    e4_round(money_to_e4(f.subtotal), s.unit_e4) + e4_round(money_to_e4(f.adjustment_total), s.unit_e4)
      AS total_e4,
    e4_round(money_to_e4(f.amount_paid), s.unit_e4) AS paid_e4
  FROM team_bill_figures f
  JOIN (SELECT DISTINCT bill_id, unit_e4 FROM approved_lines) s ON s.bill_id = f.bill_id
),
cost_items AS (
  SELECT
    l.time_entry_id,
    row_number() OVER (PARTITION BY l.time_entry_id ORDER BY l.line_id) AS k,
    l.currency AS cost_currency,
    e4_round(l.amount_e4, l.unit_e4) AS approved_e4,
    e4_share_capped(l.amount_e4, b.paid_e4, b.total_e4, l.unit_e4) AS paid_e4,
    CAST(NULL AS HUGEINT) AS estimated_e4
  FROM approved_lines l
  JOIN bills b ON b.bill_id = l.bill_id
  UNION ALL
  SELECT
    e.time_entry_id,
    1,
    r.rate_currency,
    NULL,
    NULL,
    e4_share(CAST(e.duration_seconds AS BIGINT), r.rate_e4, 3600, r.rate_unit_e4)
  FROM entries e
  JOIN entry_rates r ON r.time_entry_id = e.time_entry_id
  WHERE e.time_entry_id NOT IN (SELECT time_entry_id FROM approved_lines)
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
revenue_items AS MATERIALIZED (
  SELECT
    time_entry_id,
    row_number() OVER (PARTITION BY time_entry_id ORDER BY line_id) AS k,
    revenue_currency,
    issue_date,
    net_e4 AS billed_e4,
    e4_share_capped(net_e4, paid_e4, total_e4, unit_e4) AS collected_e4
  FROM (
    SELECT
      l.line_id,
      l.time_entry_id,
      i.currency AS revenue_currency,
      i.issue_date,
      i.total_e4,
      i.paid_e4,
      i.unit_e4,
      e4_invoice_line_net(money_e4(l.amount), i.net_e4, i.subtotal_e4, i.unit_e4) AS net_e4
    FROM fact_input_invoice_lines l
    JOIN entries e ON e.time_entry_id = l.time_entry_id
    JOIN sent_invoices i ON i.id = l.invoice_id
  )
),
items AS (
  SELECT * FROM cost_items FULL JOIN revenue_items USING (time_entry_id, k)
),
priced AS (
  SELECT
    e.time_entry_id,
    e.user_id,
    e.project_id,
    e.entry_date,
    coalesce(i.k, 1) AS k,
    i.cost_currency,
    i.approved_e4,
    i.paid_e4,
    i.estimated_e4,
    i.revenue_currency,
    i.issue_date,
    i.billed_e4,
    i.collected_e4,
    coalesce(i.k, 1) = 1
      AND e.time_entry_id NOT IN (SELECT time_entry_id FROM approved_lines)
      AND e.time_entry_id NOT IN (SELECT time_entry_id FROM entry_rates) AS missing_pay_rate,
    CASE
      WHEN coalesce(i.k, 1) = 1
        AND e.billable
        AND e.time_entry_id NOT IN (SELECT time_entry_id FROM revenue_items)
        THEN CAST(e.duration_seconds AS BIGINT)
      ELSE 0
    END AS unbilled_seconds,
    -- The currency each side looks a rate up for; NULL when none of its amounts needs one.
    CASE
      WHEN i.cost_currency <> b.base_currency
        AND (coalesce(i.approved_e4, 0) <> 0 OR coalesce(i.paid_e4, 0) <> 0
          OR coalesce(i.estimated_e4, 0) <> 0)
        THEN i.cost_currency
    END AS cost_fx_currency,
    CASE
      WHEN i.revenue_currency <> b.base_currency
        AND (coalesce(i.billed_e4, 0) <> 0 OR coalesce(i.collected_e4, 0) <> 0)
        THEN i.revenue_currency
    END AS revenue_fx_currency,
    b.base_currency,
    b.base_unit_e4
  FROM entries e
  LEFT JOIN items i ON i.time_entry_id = e.time_entry_id
  CROSS JOIN base b
),
rates_to_base AS (
  SELECT r.id, r.from_currency, r.effective_from, rate_e10(r.rate) AS rate_e10
  FROM fx_rates_live r
  JOIN base b ON r.to_currency = b.base_currency
  WHERE r.workspace_id = ws
),
-- Each (currency, day) an amount needs a rate for, looked up once.
fx_days AS (
  SELECT DISTINCT cost_fx_currency AS fx_currency, entry_date AS fx_date
  FROM priced WHERE cost_fx_currency IS NOT NULL
  UNION
  SELECT DISTINCT revenue_fx_currency, issue_date
  FROM priced WHERE revenue_fx_currency IS NOT NULL AND issue_date IS NOT NULL
),
day_fx AS (
  SELECT d.fx_currency, d.fx_date, r.id AS fx_rate_id, r.rate_e10
  FROM fx_days d
  ASOF JOIN rates_to_base r ON r.from_currency = d.fx_currency AND d.fx_date >= r.effective_from
),
converted AS (
  SELECT
    p.*,
    cr.fx_rate_id AS cost_rate_id,
    rr.fx_rate_id AS revenue_rate_id,
    -- NULL without a rate: missing FX (e4_to_base).
    e4_to_base(p.approved_e4, p.cost_fx_currency IS NOT NULL, cr.rate_e10, p.base_unit_e4)
      AS approved_b4,
    e4_to_base(p.paid_e4, p.cost_fx_currency IS NOT NULL, cr.rate_e10, p.base_unit_e4) AS paid_b4,
    e4_to_base(p.estimated_e4, p.cost_fx_currency IS NOT NULL, cr.rate_e10, p.base_unit_e4)
      AS estimated_b4,
    e4_to_base(p.billed_e4, p.revenue_fx_currency IS NOT NULL, rr.rate_e10, p.base_unit_e4)
      AS billed_b4,
    e4_to_base(p.collected_e4, p.revenue_fx_currency IS NOT NULL, rr.rate_e10, p.base_unit_e4)
      AS collected_b4
  FROM priced p
  LEFT JOIN day_fx cr ON cr.fx_currency = p.cost_fx_currency AND cr.fx_date = p.entry_date
  LEFT JOIN day_fx rr ON rr.fx_currency = p.revenue_fx_currency AND rr.fx_date = p.issue_date
),
parted AS (
  SELECT *, unnest(range(parts)) AS part
  FROM (
    SELECT
      *,
      e4_parts_of(
        approved_e4, paid_e4, estimated_e4, billed_e4, collected_e4,
        approved_b4, paid_b4, estimated_b4, billed_b4, collected_b4
      ) AS parts
    FROM converted
  )
)
SELECT
  time_entry_id,
  user_id,
  project_id,
  entry_date,
  cost_currency,
  cost_rate_id,
  cost_fx_currency IS NOT NULL AS cost_needs_fx,
  e4_part(approved_e4, parts, part) AS approved_e4,
  e4_part(paid_e4, parts, part) AS paid_e4,
  e4_part(estimated_e4, parts, part) AS estimated_e4,
  e4_part(approved_b4, parts, part) AS approved_b4,
  e4_part(paid_b4, parts, part) AS paid_b4,
  e4_part(estimated_b4, parts, part) AS estimated_b4,
  revenue_currency,
  revenue_rate_id,
  revenue_fx_currency IS NOT NULL AS revenue_needs_fx,
  e4_part(billed_e4, parts, part) AS billed_e4,
  e4_part(collected_e4, parts, part) AS collected_e4,
  e4_part(billed_b4, parts, part) AS billed_b4,
  e4_part(collected_b4, parts, part) AS collected_b4,
  missing_pay_rate AND part = 0 AS missing_pay_rate,
  CASE WHEN part = 0 THEN unbilled_seconds ELSE 0 END AS unbilled_seconds
FROM parted;
