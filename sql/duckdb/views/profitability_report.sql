-- The profitability report, view=work (decisions 8 and 9), as flat rows of one union, each
-- tagged with its `part`, which src/reports/profitability/profitability.query.ts nests into the
-- API record without computing a figure or an order. Money leaves as the exact text of its
-- integer count of 10^-4 units (`*_e4`; the lists of other reports' macros: `amount`, decimal
-- text), which plans faster than DECIMAL arithmetic. whole_from..whole_to are the range's
-- whole months (NULL: none), passed by the caller, which computes the days of the others.
--   'counts'    base_currency; member_total = members (users with at least one entry left after
--               the filters); missing_rate_count = members with missing_pay_rate
--   'summary'   one metrics row over every member, not just the page
--   'member'    the members of page `page_no` of `per_page`, `position` their place overall
--   'project'   the projects of each page member, `member_position` the member's; `position`
--               NULL: a member's projects are in the order of (project_name IS NULL,
--               project_name, project_id), which readers sort by
--   'native'    native_amounts of the summary, member and project rows (`level` 3, 1 and 0 of
--               the row they belong to); `position` NULL: a row's list is in the order of
--               (metric_position, currency), which readers sort by
--   'missing_fx', 'fx_rate', 'unallocated_revenue', 'unreconciled_receipts': each list's items,
--               `position` their place in it
--
-- A metrics row (summary, member, project) sums the converted, already rounded amounts of its
-- entries (profitability_converted):
--   billed_net, collected_net, approved_cost, estimated_cost, paid: the primary metrics
--   compensation_cost = approved_cost + estimated_cost; pending = approved_cost - paid;
--   margin = billed_net - compensation_cost;
--   margin_percent = margin x 100 / billed_net rounded to two decimals, NULL when billed_net is 0
--   client_unbilled_seconds; missing_pay_rate = one of its entries has no bill and no pay rate;
--   missing_fx = one of its amounts had no FX rate;
--   missing_metrics = in metric order: a primary metric with an amount without FX rate,
--     estimatedCost also when missing_pay_rate, compensationCost when approvedCost or
--     estimatedCost is listed, pending when approvedCost or paid is (test/reference choice 35)
--   native amounts = per metric and currency the unconverted sums, compensationCost and pending
--     derived per currency, zero sums left out, by metric order then currency (choice 36)
-- Identity (choice 37): user_id, payee_id (the live payee) and name (the payee's, else the
-- user's) on member and project rows; project_id and project_name on project rows; all NULL
-- on the summary. Order (choice 38): members by name, then user_id; a member's projects by
-- project_name, then project_id; a missing name last.
--
-- missing_fx: per primary metric and currency, the native sum of the amounts left unconverted
-- (listed even when it is 0), by metric order then currency (choice 39).
-- fx_rates: the live rates into the base currency from every currency that had a non-zero
-- amount to convert, used or not, by currency, effective date and id; used = it converted an
-- amount; rate without trailing zeros; created_at_ms in milliseconds since 1970 (choice 40).
--
-- The whole months of the range come from the month rollup of the priced facts
-- (profitability_month_facts), the other days from the facts themselves (profitability_facts),
-- both kept by the sync (docs/summaries.md); no row is computed per request.
CREATE OR REPLACE MACRO profitability_report(ws, d_from, d_to, whole_from, whole_to, user_filter, project_filter, client_filter, page_no, per_page) AS TABLE
WITH
range_rows AS (
  FROM profitability_range_rows(
    ws, d_from, d_to, whole_from, whole_to, user_filter, project_filter, client_filter
  )
),
-- Every member's sums per cost and revenue currency: the member rows and the summary.
member_sums AS MATERIALIZED (
  SELECT
    user_id,
    cost_currency,
    revenue_currency,
    sum(approved_e4) AS approved_e4,
    sum(paid_e4) AS paid_e4,
    sum(estimated_e4) AS estimated_e4,
    sum(billed_e4) AS billed_e4,
    sum(collected_e4) AS collected_e4,
    sum(approved_b4) AS approved_b4,
    sum(paid_b4) AS paid_b4,
    sum(estimated_b4) AS estimated_b4,
    sum(billed_b4) AS billed_b4,
    sum(collected_b4) AS collected_b4,
    sum(approved_missing_e4) AS approved_missing_e4,
    sum(paid_missing_e4) AS paid_missing_e4,
    sum(estimated_missing_e4) AS estimated_missing_e4,
    sum(billed_missing_e4) AS billed_missing_e4,
    sum(collected_missing_e4) AS collected_missing_e4,
    bool_or(missing_pay_rate) AS missing_pay_rate,
    sum(unbilled_seconds) AS unbilled_seconds,
    bool_or(cost_needs_fx) AS cost_needs_fx,
    bool_or(revenue_needs_fx) AS revenue_needs_fx
  FROM range_rows
  GROUP BY ALL
),
-- The members of the range (users with a row left after the filters) with their name (the live
-- payee's, else the user's) and place in report order (name, then user_id; a missing name last).
members_ordered AS MATERIALIZED (
  SELECT
    m.user_id,
    p.id AS payee_id,
    coalesce(p.name, u.name) AS name,
    row_number() OVER (
      ORDER BY coalesce(p.name, u.name) IS NULL, coalesce(p.name, u.name), m.user_id
    ) AS position
  FROM (SELECT DISTINCT user_id FROM member_sums) m
  LEFT JOIN payees p ON p.workspace_id = ws AND p.user_id = m.user_id AND p.deleted_at IS NULL
  LEFT JOIN users u ON u.workspace_id = ws AND u.id = m.user_id
),
page_users AS MATERIALIZED (
  SELECT user_id
  FROM members_ordered
  WHERE position > (page_no - 1) * per_page AND position <= page_no * per_page
),
-- Everything below sums these: the page's members per project, every other member as one row
-- (project_id NULL), which adds up to the same member row and summary and is never listed.
cells AS MATERIALIZED (
  SELECT
    user_id,
    project_id,
    cost_currency,
    revenue_currency,
    sum(approved_e4) AS approved_e4,
    sum(paid_e4) AS paid_e4,
    sum(estimated_e4) AS estimated_e4,
    sum(billed_e4) AS billed_e4,
    sum(collected_e4) AS collected_e4,
    sum(approved_b4) AS approved_b4,
    sum(paid_b4) AS paid_b4,
    sum(estimated_b4) AS estimated_b4,
    sum(billed_b4) AS billed_b4,
    sum(collected_b4) AS collected_b4,
    sum(approved_missing_e4) AS approved_missing_e4,
    sum(paid_missing_e4) AS paid_missing_e4,
    sum(estimated_missing_e4) AS estimated_missing_e4,
    sum(billed_missing_e4) AS billed_missing_e4,
    sum(collected_missing_e4) AS collected_missing_e4,
    bool_or(missing_pay_rate) AS missing_pay_rate,
    sum(unbilled_seconds) AS unbilled_seconds
  FROM range_rows
  WHERE user_id IN (SELECT user_id FROM page_users)
  GROUP BY ALL
  UNION ALL BY NAME
  SELECT * EXCLUDE (cost_needs_fx, revenue_needs_fx)
  FROM member_sums
  WHERE user_id NOT IN (SELECT user_id FROM page_users)
),
-- The rates that converted an amount of the range.
rates_used AS (
  SELECT DISTINCT unnest([cost_rate_id, revenue_rate_id]) AS id FROM range_rows
),
-- The converted figures of every project row (level 0), member row (level 1) and the summary
-- (level 3: GROUPING of user_id and project_id), with what made each incomplete.
figures AS MATERIALIZED (
  SELECT
    user_id,
    project_id,
    GROUPING(user_id, project_id) AS level,
    coalesce(sum(billed_b4), 0) AS billed_net_e4,
    coalesce(sum(collected_b4), 0) AS collected_net_e4,
    coalesce(sum(approved_b4), 0) AS approved_cost_e4,
    coalesce(sum(estimated_b4), 0) AS estimated_cost_e4,
    coalesce(sum(paid_b4), 0) AS paid_e4,
    count(billed_missing_e4) > 0 AS billed_net_fx_missing,
    count(collected_missing_e4) > 0 AS collected_net_fx_missing,
    count(approved_missing_e4) > 0 AS approved_cost_fx_missing,
    count(estimated_missing_e4) > 0 AS estimated_cost_fx_missing,
    count(paid_missing_e4) > 0 AS paid_fx_missing,
    coalesce(bool_or(missing_pay_rate), false) AS missing_pay_rate,
    coalesce(sum(unbilled_seconds), 0) AS client_unbilled_seconds
  FROM cells
  GROUP BY GROUPING SETS ((user_id, project_id), (user_id), ())
),
-- The rows listed: the summary, the page's members and their projects.
listed AS (
  SELECT f.*
  FROM figures f
  WHERE f.level = 3 OR f.level IN (0, 1) AND f.user_id IN (SELECT user_id FROM page_users)
),
metric_rows AS (
  SELECT
    CASE c.level WHEN 3 THEN 'summary' WHEN 1 THEN 'member' ELSE 'project' END AS part,
    c.level,
    -- A project's place is its name and id (see the header): numbering the rows of each member
    -- took a window operator 9 ms of a month's report.
    CASE c.level WHEN 1 THEN mo.position END AS position,
    -- A project row's member's place (the member row's position), for readers of the rows.
    CASE WHEN c.level IN (0, 1) THEN mo.position END AS member_position,
    c.user_id,
    mo.payee_id,
    mo.name,
    c.project_id,
    pr.name AS project_name,
    CAST(c.billed_net_e4 AS VARCHAR) AS billed_net_e4,
    CAST(c.collected_net_e4 AS VARCHAR) AS collected_net_e4,
    CAST(c.approved_cost_e4 + c.estimated_cost_e4 AS VARCHAR) AS compensation_cost_e4,
    CAST(c.approved_cost_e4 AS VARCHAR) AS approved_cost_e4,
    CAST(c.estimated_cost_e4 AS VARCHAR) AS estimated_cost_e4,
    CAST(c.paid_e4 AS VARCHAR) AS paid_e4,
    CAST(c.approved_cost_e4 - c.paid_e4 AS VARCHAR) AS pending_e4,
    CAST(c.billed_net_e4 - (c.approved_cost_e4 + c.estimated_cost_e4) AS VARCHAR) AS margin_e4,
    CASE
      WHEN c.billed_net_e4 <> 0
        THEN CAST(
          e4_percent(c.billed_net_e4 - (c.approved_cost_e4 + c.estimated_cost_e4), c.billed_net_e4)
          AS VARCHAR
        )
    END AS margin_percent,
    CAST(c.client_unbilled_seconds AS BIGINT) AS client_unbilled_seconds,
    c.billed_net_fx_missing OR c.collected_net_fx_missing OR c.approved_cost_fx_missing
      OR c.estimated_cost_fx_missing OR c.paid_fx_missing AS missing_fx,
    c.missing_pay_rate,
    list_filter([
      CASE WHEN c.billed_net_fx_missing THEN 'billedNet' END,
      CASE WHEN c.collected_net_fx_missing THEN 'collectedNet' END,
      CASE
        WHEN c.approved_cost_fx_missing OR c.estimated_cost_fx_missing OR c.missing_pay_rate
          THEN 'compensationCost'
      END,
      CASE WHEN c.approved_cost_fx_missing THEN 'approvedCost' END,
      CASE WHEN c.estimated_cost_fx_missing OR c.missing_pay_rate THEN 'estimatedCost' END,
      CASE WHEN c.paid_fx_missing THEN 'paid' END,
      CASE WHEN c.approved_cost_fx_missing OR c.paid_fx_missing THEN 'pending' END
    ], lambda metric: metric IS NOT NULL) AS missing_metrics
  FROM listed c
  LEFT JOIN members_ordered mo ON mo.user_id = c.user_id
  LEFT JOIN projects pr ON pr.workspace_id = ws AND pr.id = c.project_id
),
-- The unconverted sums of the listed rows per currency and metric (compensationCost and pending
-- derived per currency): the costs in their currency, the revenue in its own.
native_amounts AS (
  SELECT
    GROUPING(user_id, project_id) AS level, user_id, project_id, cost_currency AS currency,
    coalesce(sum(approved_e4), 0) AS approved_e4,
    coalesce(sum(estimated_e4), 0) AS estimated_e4,
    coalesce(sum(paid_e4), 0) AS paid_e4,
    NULL AS billed_e4,
    NULL AS collected_e4
  FROM cells
  WHERE cost_currency IS NOT NULL
  GROUP BY GROUPING SETS ((user_id, project_id, cost_currency), (user_id, cost_currency), (cost_currency))
  UNION ALL
  SELECT
    GROUPING(user_id, project_id), user_id, project_id, revenue_currency,
    NULL, NULL, NULL,
    coalesce(sum(billed_e4), 0),
    coalesce(sum(collected_e4), 0)
  FROM cells
  WHERE revenue_currency IS NOT NULL
  GROUP BY GROUPING SETS (
    (user_id, project_id, revenue_currency), (user_id, revenue_currency), (revenue_currency)
  )
),
native_metrics AS (
  SELECT n.level, n.user_id, n.project_id, m.metric_position, n.currency, m.metric,
    CASE m.metric
      WHEN 'billedNet' THEN n.billed_e4
      WHEN 'collectedNet' THEN n.collected_e4
      WHEN 'compensationCost' THEN n.approved_e4 + n.estimated_e4
      WHEN 'approvedCost' THEN n.approved_e4
      WHEN 'estimatedCost' THEN n.estimated_e4
      WHEN 'paid' THEN n.paid_e4
      WHEN 'pending' THEN n.approved_e4 - n.paid_e4
    END AS amount_e4
  FROM native_amounts n
  CROSS JOIN (
    SELECT unnest(profitability_metrics()) AS metric,
      unnest(range(1, len(profitability_metrics()) + 1)) AS metric_position
  ) m
  WHERE n.level = 3 OR n.level IN (0, 1) AND n.user_id IN (SELECT user_id FROM page_users)
),
-- Per primary metric and currency, the native sum of the amounts left unconverted.
missing_amounts AS (
  SELECT 'billedNet' AS metric, revenue_currency AS currency, billed_missing_e4 AS amount_e4
  FROM cells WHERE billed_missing_e4 IS NOT NULL
  UNION ALL
  SELECT 'collectedNet', revenue_currency, collected_missing_e4
  FROM cells WHERE collected_missing_e4 IS NOT NULL
  UNION ALL
  SELECT 'approvedCost', cost_currency, approved_missing_e4
  FROM cells WHERE approved_missing_e4 IS NOT NULL
  UNION ALL
  SELECT 'estimatedCost', cost_currency, estimated_missing_e4
  FROM cells WHERE estimated_missing_e4 IS NOT NULL
  UNION ALL
  SELECT 'paid', cost_currency, paid_missing_e4
  FROM cells WHERE paid_missing_e4 IS NOT NULL
),
base AS (
  SELECT base_currency FROM workspaces WHERE id = ws
)
SELECT * FROM metric_rows
UNION ALL BY NAME
SELECT
  'native' AS part,
  level,
  metric_position,
  user_id,
  project_id,
  currency,
  metric,
  CAST(amount_e4 AS VARCHAR) AS amount_e4
FROM native_metrics
WHERE amount_e4 <> 0
UNION ALL BY NAME
SELECT
  'counts' AS part,
  (SELECT base_currency FROM base) AS base_currency,
  (SELECT count(*) FROM members_ordered) AS member_total,
  (SELECT count(*) FROM figures WHERE level = 1 AND missing_pay_rate) AS missing_rate_count
UNION ALL BY NAME
SELECT
  'missing_fx' AS part,
  row_number() OVER (ORDER BY profitability_metric_position(metric), currency) AS position,
  currency,
  metric,
  CAST(sum(amount_e4) AS VARCHAR) AS amount_e4
FROM missing_amounts
GROUP BY metric, currency
UNION ALL BY NAME
SELECT
  'fx_rate' AS part,
  row_number() OVER (ORDER BY r.from_currency, r.effective_from, r.id) AS position,
  r.id AS fx_rate_id,
  r.from_currency AS currency,
  r.to_currency,
  r.effective_from,
  epoch_ms(r.created_at) AS created_at_ms,
  r.id IN (SELECT id FROM rates_used WHERE id IS NOT NULL) AS used,
  rtrim(rtrim(CAST(r.rate AS VARCHAR), '0'), '.') AS rate
FROM fx_rates_live r
WHERE r.workspace_id = ws
  AND r.to_currency = (SELECT base_currency FROM base)
  AND r.from_currency IN (
    SELECT cost_currency FROM member_sums WHERE cost_needs_fx
    UNION ALL
    SELECT revenue_currency FROM member_sums WHERE revenue_needs_fx
  )
UNION ALL BY NAME
SELECT
  'unallocated_revenue' AS part,
  row_number() OVER (ORDER BY u.currency, u.amount) AS position,
  u.currency,
  CAST(u.amount AS VARCHAR) AS amount
FROM profitability_unallocated_revenue(
  ws, d_from, d_to, user_filter, project_filter, client_filter
) u
UNION ALL BY NAME
SELECT
  'unreconciled_receipts' AS part,
  row_number() OVER (ORDER BY x.currency, x.amount) AS position,
  x.currency,
  CAST(x.amount AS VARCHAR) AS amount
FROM profitability_unreconciled_receipts(
  ws, d_from, d_to, user_filter, project_filter, client_filter
) x;
