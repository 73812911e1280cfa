-- The profitability report, view=work (decisions 8 and 9), as one row with nested lists, so the
-- converted amounts are computed once and every figure comes from the same cells:
--   base_currency
--   member_total       = members (users with at least one entry left after the filters)
--   missing_rate_count = members with missing_pay_rate
--   summary            = one metrics row over every member, not just the page
--   members            = page `page_no` of `per_page` members, each {position, member, projects}
--   missing_fx, fx_rates, unallocated_revenue, unreconciled_receipts
-- Lists are NULL when empty. They are put in order with list_sort, which compares structs field
-- by field, so each item's leading fields are its sort key (extra fields the API drops).
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
--   native_amounts = per metric and currency the unconverted sums, compensationCost and pending
--     derived per currency, zero sums left out, by metric order then currency (choice 36)
-- Identity (choice 37): user_id, payee_id (the live payee) and name (the payee's, else the
-- user's) on member and project rows; project_id and project_name on project rows; all NULL
-- on the summary. Order (choice 38): members by name, then user_id; a member's projects by
-- project_name, then project_id; a missing name last.
--
-- missing_fx: per primary metric and currency, the native sum of the amounts left unconverted
-- (listed even when it is 0), by metric order then currency (choice 39).
-- fx_rates: the live rates into the base currency from every currency that had a non-zero
-- amount to convert, used or not; used = it converted an amount; rate without trailing zeros;
-- created_at_ms in milliseconds since 1970 (choice 40).
CREATE OR REPLACE MACRO profitability_report(ws, d_from, d_to, user_filter, project_filter, client_filter, page_no, per_page, with_days := true) AS TABLE
WITH
-- The whole months of the range come from the cells the sync keeps; the days of partly covered
-- months are computed here (profitability_cells, skipping the whole months): day_cells. A
-- caller whose range is whole months passes with_days := false as a constant, and DuckDB drops
-- this part of the plan (it would otherwise still match millions of lines against no entries).
day_cells AS MATERIALIZED (
  FROM profitability_cells(
    ws, d_from, d_to, user_filter, project_filter, client_filter,
    skip_from := profitability_whole_from(d_from, d_to),
    skip_to := profitability_whole_to(d_from, d_to)
  )
  WHERE with_days
),
-- The whole months' project cells. Only the page's members need their project rows, so the
-- others are read at the member grain (member_month_cells) unless a project or client filter
-- asks for project rows anyway.
month_project_cells AS (
  SELECT * EXCLUDE (workspace_id, month)
  FROM profitability_month_cells
  WHERE workspace_id = ws
    AND month BETWEEN profitability_whole_from(d_from, d_to) AND profitability_whole_to(d_from, d_to)
    AND (user_filter IS NULL OR user_id = user_filter)
    AND (project_filter IS NULL OR project_id = project_filter)
    AND (
      client_filter IS NULL
      OR project_id IN (SELECT id FROM projects WHERE workspace_id = ws AND client_id = client_filter)
    )
),
-- Every member's cells summed over projects, over the whole range.
member_cells AS MATERIALIZED (
  SELECT * EXCLUDE (workspace_id, month)
  FROM profitability_member_cells
  WHERE workspace_id = ws
    AND month BETWEEN profitability_whole_from(d_from, d_to) AND profitability_whole_to(d_from, d_to)
    AND (user_filter IS NULL OR user_id = user_filter)
    AND project_filter IS NULL
    AND client_filter IS NULL
  UNION ALL BY NAME
  SELECT * EXCLUDE (project_id)
  FROM month_project_cells
  WHERE project_filter IS NOT NULL OR client_filter IS NOT NULL
  UNION ALL BY NAME
  SELECT * EXCLUDE (month, project_id)
  FROM day_cells
),
-- The members in report order (name: the live payee's, else the user's; then user_id; a
-- missing name last), the same order as `members` below, to know the page's members early.
member_order AS (
  SELECT
    m.user_id,
    row_number() OVER (
      ORDER BY coalesce(p.name, u.name) IS NULL, coalesce(p.name, u.name), m.user_id
    ) AS position
  FROM (SELECT DISTINCT user_id FROM member_cells) m
  LEFT JOIN payees p ON p.workspace_id = ws AND p.user_id = m.user_id AND p.deleted_at IS NULL
  LEFT JOIN users u ON u.workspace_id = ws AND u.id = m.user_id
),
page_users AS MATERIALIZED (
  SELECT user_id
  FROM member_order
  WHERE position > (page_no - 1) * per_page AND position <= page_no * per_page
),
-- Everything below sums these: one row per member, project, metric, currency and FX rate used
-- (metric NULL: the per-entry facts). Sums stay exact integer counts of 10^-4 (e4) until the
-- rows are made, then become DECIMAL(38,4). The page's members have a row per project; every
-- other member one row (project_id NULL), which adds up to the same member row and summary
-- and is never listed as a project.
cells AS MATERIALIZED (
  SELECT
    user_id,
    project_id,
    metric,
    currency,
    fx_rate_id,
    sum(native_e4) AS native_e4,
    sum(converted_e4) AS converted_e4,
    sum(missing_e4) AS missing_e4,
    bool_or(fx_missing) AS fx_missing,
    bool_or(needs_fx) AS needs_fx,
    bool_or(missing_pay_rate) AS missing_pay_rate,
    sum(unbilled_seconds) AS unbilled_seconds
  FROM (
    SELECT * FROM month_project_cells WHERE user_id IN (SELECT user_id FROM page_users)
    UNION ALL BY NAME
    SELECT * EXCLUDE (month) FROM day_cells WHERE user_id IN (SELECT user_id FROM page_users)
    UNION ALL BY NAME
    SELECT *, CAST(NULL AS UUID) AS project_id
    FROM member_cells
    WHERE user_id NOT IN (SELECT user_id FROM page_users)
  )
  GROUP BY user_id, project_id, metric, currency, fx_rate_id
),
-- The converted figures of every project row (level 0), member row (level 1) and the summary
-- (level 3: GROUPING of user_id and project_id), with what made each incomplete.
figures AS (
  SELECT
    user_id,
    project_id,
    GROUPING(user_id, project_id) AS level,
    coalesce(sum(converted_e4) FILTER (WHERE metric = 'billedNet'), 0) AS billed_net_e4,
    coalesce(sum(converted_e4) FILTER (WHERE metric = 'collectedNet'), 0) AS collected_net_e4,
    coalesce(sum(converted_e4) FILTER (WHERE metric = 'approvedCost'), 0) AS approved_cost_e4,
    coalesce(sum(converted_e4) FILTER (WHERE metric = 'estimatedCost'), 0) AS estimated_cost_e4,
    coalesce(sum(converted_e4) FILTER (WHERE metric = 'paid'), 0) AS paid_e4,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'billedNet'), false)
      AS billed_net_fx_missing,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'collectedNet'), false)
      AS collected_net_fx_missing,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'approvedCost'), false)
      AS approved_cost_fx_missing,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'estimatedCost'), false)
      AS estimated_cost_fx_missing,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'paid'), false) AS paid_fx_missing,
    coalesce(bool_or(missing_pay_rate), false) AS missing_pay_rate,
    coalesce(sum(unbilled_seconds), 0) AS client_unbilled_seconds
  FROM cells
  GROUP BY GROUPING SETS ((user_id, project_id), (user_id), ())
),
-- The unconverted sums per row and currency, for native_amounts.
native_sums AS (
  SELECT
    user_id,
    project_id,
    GROUPING(user_id, project_id) AS level,
    currency,
    coalesce(sum(native_e4) FILTER (WHERE metric = 'billedNet'), 0) AS billed_net_e4,
    coalesce(sum(native_e4) FILTER (WHERE metric = 'collectedNet'), 0) AS collected_net_e4,
    coalesce(sum(native_e4) FILTER (WHERE metric = 'approvedCost'), 0) AS approved_cost_e4,
    coalesce(sum(native_e4) FILTER (WHERE metric = 'estimatedCost'), 0) AS estimated_cost_e4,
    coalesce(sum(native_e4) FILTER (WHERE metric = 'paid'), 0) AS paid_e4
  FROM cells
  WHERE metric IS NOT NULL
  GROUP BY GROUPING SETS ((user_id, project_id, currency), (user_id, currency), (currency))
),
-- Each row's native amounts: per currency the seven metrics (compensationCost and pending derived
-- per currency), zero amounts left out; `position` is the metric's place in the metric order.
native_lists AS (
  SELECT
    user_id,
    project_id,
    level,
    list_sort(flatten(list(list_filter([
      {'position': 1, 'currency': currency, 'metric': 'billedNet',
        'amount': money_of_e4(billed_net_e4)},
      {'position': 2, 'currency': currency, 'metric': 'collectedNet',
        'amount': money_of_e4(collected_net_e4)},
      {'position': 3, 'currency': currency, 'metric': 'compensationCost',
        'amount': money_of_e4(approved_cost_e4 + estimated_cost_e4)},
      {'position': 4, 'currency': currency, 'metric': 'approvedCost',
        'amount': money_of_e4(approved_cost_e4)},
      {'position': 5, 'currency': currency, 'metric': 'estimatedCost',
        'amount': money_of_e4(estimated_cost_e4)},
      {'position': 6, 'currency': currency, 'metric': 'paid',
        'amount': money_of_e4(paid_e4)},
      {'position': 7, 'currency': currency, 'metric': 'pending',
        'amount': money_of_e4(approved_cost_e4 - paid_e4)}
    ], lambda item: item.amount <> 0)))) AS native_amounts
  FROM native_sums
  GROUP BY user_id, project_id, level
),
member_identities AS (
  SELECT m.user_id, p.id AS payee_id, coalesce(p.name, u.name) AS name
  FROM (SELECT DISTINCT user_id FROM cells) m
  LEFT JOIN payees p ON p.workspace_id = ws AND p.user_id = m.user_id AND p.deleted_at IS NULL
  LEFT JOIN users u ON u.workspace_id = ws AND u.id = m.user_id
),
completeness AS (
  SELECT
    f.*,
    f.approved_cost_e4 + f.estimated_cost_e4 AS compensation_cost_e4,
    f.billed_net_e4 - (f.approved_cost_e4 + f.estimated_cost_e4) AS margin_e4,
    f.approved_cost_fx_missing AS approved_cost_incomplete,
    f.estimated_cost_fx_missing OR f.missing_pay_rate AS estimated_cost_incomplete
  FROM figures f
),
-- label and row_key: what a row sorts by among its siblings (members: name, user_id; projects:
-- project_name, project_id), first so that list_sort orders whole rows by them.
metric_rows AS MATERIALIZED (
  SELECT
    c.level,
    CASE c.level WHEN 0 THEN pr.name ELSE mi.name END IS NULL AS label_missing,
    CASE c.level WHEN 0 THEN pr.name ELSE mi.name END AS label,
    coalesce(c.project_id, c.user_id) AS row_key,
    c.user_id,
    mi.payee_id,
    mi.name,
    c.project_id,
    pr.name AS project_name,
    money_of_e4(c.billed_net_e4) AS billed_net,
    money_of_e4(c.collected_net_e4) AS collected_net,
    money_of_e4(c.compensation_cost_e4) AS compensation_cost,
    money_of_e4(c.approved_cost_e4) AS approved_cost,
    money_of_e4(c.estimated_cost_e4) AS estimated_cost,
    money_of_e4(c.paid_e4) AS paid,
    money_of_e4(c.approved_cost_e4 - c.paid_e4) AS pending,
    money_of_e4(c.margin_e4) AS margin,
    CASE WHEN c.billed_net_e4 <> 0 THEN e4_percent(c.margin_e4, c.billed_net_e4) END
      AS margin_percent,
    CAST(c.client_unbilled_seconds AS BIGINT) AS client_unbilled_seconds,
    c.billed_net_fx_missing OR c.collected_net_fx_missing OR c.approved_cost_fx_missing
      OR c.estimated_cost_fx_missing OR c.paid_fx_missing AS missing_fx,
    c.missing_pay_rate,
    list_filter([
      CASE WHEN c.billed_net_fx_missing THEN 'billedNet' END,
      CASE WHEN c.collected_net_fx_missing THEN 'collectedNet' END,
      CASE
        WHEN c.approved_cost_incomplete OR c.estimated_cost_incomplete THEN 'compensationCost'
      END,
      CASE WHEN c.approved_cost_incomplete THEN 'approvedCost' END,
      CASE WHEN c.estimated_cost_incomplete THEN 'estimatedCost' END,
      CASE WHEN c.paid_fx_missing THEN 'paid' END,
      CASE WHEN c.approved_cost_incomplete OR c.paid_fx_missing THEN 'pending' END
    ], lambda metric: metric IS NOT NULL) AS missing_metrics,
    n.native_amounts
  FROM completeness c
  LEFT JOIN member_identities mi ON mi.user_id = c.user_id
  LEFT JOIN projects pr ON pr.workspace_id = ws AND pr.id = c.project_id
  LEFT JOIN native_lists n
    ON n.level = c.level
    AND n.user_id IS NOT DISTINCT FROM c.user_id
    AND n.project_id IS NOT DISTINCT FROM c.project_id
),
members AS MATERIALIZED (
  SELECT r.*, row_number() OVER (ORDER BY r.label_missing, r.label, r.row_key) AS position
  FROM metric_rows r
  WHERE r.level = 1
),
page_members AS (
  SELECT *
  FROM members
  WHERE position > (page_no - 1) * per_page AND position <= page_no * per_page
),
page_projects AS (
  SELECT r.user_id, list_sort(list(r)) AS projects
  FROM metric_rows r
  WHERE r.level = 0 AND r.user_id IN (SELECT user_id FROM page_members)
  GROUP BY r.user_id
),
missing_fx AS (
  SELECT
    profitability_metric_position(metric) AS position,
    currency AS from_currency,
    metric,
    money_of_e4(sum(missing_e4)) AS amount
  FROM cells
  WHERE fx_missing
  GROUP BY metric, currency
),
base AS (
  SELECT base_currency FROM workspaces WHERE id = ws
),
fx_rates_listed AS (
  SELECT
    r.from_currency,
    r.effective_from,
    r.id,
    r.to_currency,
    epoch_ms(r.created_at) AS created_at_ms,
    r.id IN (SELECT fx_rate_id FROM cells WHERE fx_rate_id IS NOT NULL) AS used,
    rtrim(rtrim(CAST(r.rate AS VARCHAR), '0'), '.') AS rate
  FROM fx_rates_live r
  WHERE r.workspace_id = ws
    AND r.to_currency = (SELECT base_currency FROM base)
    AND r.from_currency IN (SELECT currency FROM cells WHERE needs_fx)
),
-- Every part of the report as rows of one union, gathered by one aggregate: DuckDB plans that
-- far faster than a row of scalar subqueries, which it joins as cross products.
parts AS (
  SELECT 'summary' AS part, r AS summary
  FROM metric_rows r
  WHERE r.level = 3
  UNION ALL BY NAME
  SELECT
    'counts' AS part,
    count(*) AS member_total,
    count(*) FILTER (WHERE missing_pay_rate) AS missing_rate_count
  FROM members
  UNION ALL BY NAME
  SELECT 'member' AS part, {'position': m.position, 'member': m, 'projects': p.projects} AS member
  FROM page_members m
  LEFT JOIN page_projects p ON p.user_id = m.user_id
  UNION ALL BY NAME
  SELECT 'missing_fx' AS part, f AS missing_fx
  FROM missing_fx f
  UNION ALL BY NAME
  SELECT 'fx_rate' AS part, r AS fx_rate
  FROM fx_rates_listed r
  UNION ALL BY NAME
  SELECT 'unallocated_revenue' AS part, u AS unallocated_revenue
  FROM profitability_unallocated_revenue(
    ws, d_from, d_to, user_filter, project_filter, client_filter
  ) u
  UNION ALL BY NAME
  SELECT 'unreconciled_receipts' AS part, x AS unreconciled_receipts
  FROM profitability_unreconciled_receipts(
    ws, d_from, d_to, user_filter, project_filter, client_filter
  ) x
)
SELECT
  (SELECT base_currency FROM base) AS base_currency,
  max(member_total) AS member_total,
  max(missing_rate_count) AS missing_rate_count,
  any_value(summary) AS summary,
  list_sort(list(member) FILTER (WHERE part = 'member')) AS members,
  list_sort(list(missing_fx) FILTER (WHERE part = 'missing_fx')) AS missing_fx,
  list_sort(list(fx_rate) FILTER (WHERE part = 'fx_rate')) AS fx_rates,
  list_sort(list(unallocated_revenue) FILTER (WHERE part = 'unallocated_revenue'))
    AS unallocated_revenue,
  list_sort(list(unreconciled_receipts) FILTER (WHERE part = 'unreconciled_receipts'))
    AS unreconciled_receipts
FROM parts;
