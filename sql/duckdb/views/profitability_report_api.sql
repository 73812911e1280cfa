-- The rows of profitability_report as the API writes them (decisions 8, docs/decisions.md
-- "Profitability"): each row's JSON text in the record's own field names, money at its
-- currency's scale (e4_text), a metrics row with its links. src/reports/profitability/ only
-- puts the texts together: each row's nativeAmounts into it, the members' projects into their
-- member, the lists into the record. A report of a month writes about 6,000 rows (1.5 MB),
-- which JavaScript would otherwise parse, format and print again.
--   part             as profitability_report's: 'summary', 'member', 'project', 'native',
--                    'counts', 'missing_fx', 'fx_rate', 'unallocated_revenue',
--                    'unreconciled_receipts'
--   owner            the metrics row a metrics or native row belongs to: level/user/project
--   member_position  a project's or member's member's place (the member row's position)
--   position         the row's place among its part's: a member's among members, a list item's
--                    in its list; NULL for projects and native amounts, ordered by the place_*
--   place_*          a project's place among its member's (name, a missing one last, then id)
--                    and a native amount's in its row's list (metric, then currency): sort keys
--                    rather than a number, which took two window operators 10-20% of a report
--   links            a metrics row's links (JSON text)
--   json             the row's JSON text; a metrics row's without its nativeAmounts and links,
--                    a member's also without its projectCount and projects
-- Rows come ordered by part, member_position, position and the place_* columns.
CREATE OR REPLACE MACRO profitability_report_api(ws, d_from, d_to, whole_from, whole_to, user_filter, project_filter, client_filter, page_no, per_page) AS TABLE
SELECT
  r.part,
  CASE WHEN r.part IN ('summary', 'member', 'project', 'native') THEN
    concat(r.level, '/', r.user_id, '/', r.project_id)
  END AS owner,
  r.member_position,
  r.position,
  r.project_name IS NULL AS place_name_missing,
  r.project_name AS place_name,
  r.project_id AS place_project_id,
  r.metric_position AS place_metric_position,
  r.currency AS place_currency,
  -- A metrics row's links: `app` opens the report narrowed to the row (same range), `payee`
  -- the member's payee, `project` the project; no row is a task. Dates and ids need no URL
  -- escaping.
  CASE WHEN r.part IN ('summary', 'member', 'project') THEN to_json({
    'app': concat(
      '/app/team/profitability?from=', d_from, '&to=', d_to,
      CASE WHEN r.user_id IS NOT NULL THEN concat('&userId=', r.user_id) ELSE '' END,
      CASE WHEN r.project_id IS NOT NULL THEN concat('&projectId=', r.project_id) ELSE '' END
    ),
    'payee': coalesce('/app/team/payees/' || r.payee_id, ''),
    'project': coalesce('/app/projects/' || r.project_id, ''),
    'task': ''
  }) END AS links,
  CASE
    WHEN r.part IN ('summary', 'member', 'project') THEN to_json({
      'userId': r.user_id,
      'payeeId': r.payee_id,
      'name': r.name,
      'projectId': r.project_id,
      'projectName': r.project_name,
      'billedNet': r.texts[1],
      'collectedNet': r.texts[2],
      'compensationCost': r.texts[3],
      'approvedCost': r.texts[4],
      'estimatedCost': r.texts[5],
      'paid': r.texts[6],
      'pending': r.texts[7],
      'margin': r.texts[8],
      'marginPercent': r.margin_percent,
      'clientUnbilledSeconds': r.client_unbilled_seconds,
      'missingFx': r.missing_fx,
      'missingPayRate': r.missing_pay_rate,
      'missingMetrics': r.missing_metrics
    })
    WHEN r.part = 'native' THEN to_json({
      'currency': r.currency,
      'metric': r.metric,
      'amount': r.texts[9]
    })
    WHEN r.part = 'counts' THEN to_json({
      'baseCurrency': r.base_currency,
      'memberTotal': r.member_total,
      'missingRateCount': r.missing_rate_count
    })
    WHEN r.part = 'missing_fx' THEN to_json({
      'fromCurrency': r.currency,
      'toCurrency': r.base_currency_code,
      'amount': r.texts[9],
      'metric': r.metric
    })
    WHEN r.part = 'fx_rate' THEN to_json({
      'id': r.fx_rate_id,
      'fromCurrency': r.currency,
      'toCurrency': r.to_currency,
      'effectiveFrom': r.effective_from,
      'createdAt': strftime(epoch_ms(r.created_at_ms), '%Y-%m-%dT%H:%M:%S.%gZ'),
      'used': r.used,
      'rate': r.rate
    })
    -- unallocated_revenue, unreconciled_receipts
    ELSE to_json({
      'currency': r.currency,
      'amount': decimal_at_scale(CAST(r.amount AS DECIMAL(38, 4)), r.scale)
    })
  END AS json
FROM (
  -- Every amount of a row printed by one e4_text (a metrics row's eight at the base currency's
  -- scale, then a native or missing amount at its own): planning e4_text ten times over took
  -- DuckDB several milliseconds more.
  SELECT
    r.*,
    b.currency AS base_currency_code,
    coalesce(c.scale, 2) AS scale,
    list_transform(
      [
        r.billed_net_e4, r.collected_net_e4, r.compensation_cost_e4, r.approved_cost_e4,
        r.estimated_cost_e4, r.paid_e4, r.pending_e4, r.margin_e4, r.amount_e4
      ],
      lambda e4, i: e4_text(e4, CASE WHEN i <= 8 THEN b.scale ELSE coalesce(c.scale, 2) END)
    ) AS texts
  FROM profitability_report(
    ws, d_from, d_to, whole_from, whole_to, user_filter, project_filter, client_filter,
    page_no, per_page
  ) r
  CROSS JOIN (
    SELECT w.base_currency AS currency, coalesce(c.scale, 2) AS scale
    FROM workspaces w
    LEFT JOIN currencies c ON c.code = w.base_currency
    WHERE w.id = ws
  ) b
  LEFT JOIN currencies c ON c.code = r.currency
) r
ORDER BY r.part, r.member_position, r.position, place_name_missing, place_name, place_project_id,
  place_metric_position, place_currency;
