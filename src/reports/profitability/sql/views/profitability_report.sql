-- The metrics rows of a profitability report, view=work (decisions 8 and 9), for the exports
-- (profitability-members, profitability-projects: src/exports/export-reports.ts, every member on
-- one page). The API computes the same record from the same rows in
-- src/reports/profitability/profitability.query.ts; test/exports.test.ts compares the two.
-- Money leaves as the exact text of its integer count of 10^-4 units (`*_e4`). whole_from..
-- whole_to are the range's whole months (NULL: none), passed by the caller.
--   'summary'   one metrics row over every member, not just the page
--   'member'    the members of page `page_no` of `per_page`, `position` their place overall
--   'project'   the projects of each page member, `member_position` the member's; `position`
--               NULL: a member's projects are in the order of (project_name IS NULL,
--               project_name, project_id), which readers sort by
--
-- A metrics row (summary, member, project) sums the converted, already rounded amounts of its
-- entries (their priced facts, profitability_facts_for):
--   billed_net, collected_net, approved_cost, estimated_cost, paid: the primary metrics
--   compensation_cost = approved_cost + estimated_cost; pending = approved_cost - paid;
--   margin = billed_net - compensation_cost;
--   margin_percent = margin x 100 / billed_net rounded to two decimals, NULL when billed_net is 0
--   client_unbilled_seconds; missing_pay_rate = one of its entries has no bill and no pay rate;
--   missing_fx = one of its amounts had no FX rate;
--   missing_metrics = in metric order: a primary metric with an amount without FX rate,
--     estimatedCost also when missing_pay_rate, compensationCost when approvedCost or
--     estimatedCost is listed, pending when approvedCost or paid is (test/reference choice 35)
-- Identity (choice 37): user_id, payee_id (the live payee) and name (the payee's, else the
-- user's) on member and project rows; project_id and project_name on project rows; all NULL
-- on the summary. Order (choice 38): members by name, then user_id; a member's projects by
-- project_name, then project_id; a missing name last.
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
  FROM (SELECT DISTINCT user_id FROM range_rows) m
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
    CASE WHEN user_id IN (SELECT user_id FROM page_users) THEN project_id END AS project_id,
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
  GROUP BY ALL
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
)
SELECT * FROM metric_rows;
