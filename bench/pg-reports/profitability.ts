// GET /team-payouts/profitability (view=work) computed in PostgreSQL (the conventions of every
// statement: common.ts).
import type {
  Profitability,
  ProfitabilityMember,
  ProfitabilityRow,
} from '../../src/reports/profitability/profitability.schema.ts';
import { CURRENCY_CODES, CURRENCY_SCALES, type Queryable } from './common.ts';

// $1 workspace, $2 from, $3 to, $4 userId, $5 projectId, $6 clientId (NULL: no filter), $7 page,
// $8 perPage, $9 codes, $10 scales. docs/contract.md, "Profitability" and "FX conversion", with
// test/reference/README.md, choices 26-42:
// * entries: live, not running, entry_date in range, narrowed by the filters (a deleted project
//   or client still counts; a 0-second entry makes its rows);
// * B: each TIME line of a live APPROVED bill naming the entry. approvedCost = the line's amount,
//   paid = amount x min(B.paid / B.total, 1) (0 when B.total is 0), B's total and paid each
//   rounded to the bill currency; both dated on the entry date;
// * estimatedCost: an entry on no such line, with the rate of its user's live payee in force on
//   its date (on/after the payee's start date): duration x rate / 3600, rounded to the rate
//   currency; without a rate the row's missingPayRate;
// * billedNet per line (any kind) of a live SENT/PAID invoice naming the entry: amount x
//   (subtotal - discount) / subtotal (the amount when subtotal is 0), rounded; collectedNet =
//   that net x min(paid / total, 1) (0 when total is 0), rounded; both dated on the issue date;
// * every non-zero amount in another currency than the base converts with the live rate into
//   the base with the latest effective_from <= its date, rounded to the base currency, then
//   summed; without one it is left out and reported (missingFx).
const PROFITABILITY_SQL = `
WITH scales AS (
  SELECT code, scale FROM unnest($9::text[], $10::int[]) AS s(code, scale)
),
base AS (
  SELECT w.base_currency,
    coalesce(s.scale, ('unknown currency ' || w.base_currency)::int) AS base_scale
  FROM workspaces w
  LEFT JOIN scales s ON s.code = w.base_currency
  WHERE w.id = $1
),
entries AS MATERIALIZED (
  SELECT e.id, e.user_id, e.project_id, e.entry_date, e.duration_seconds, e.billable
  FROM time_entries e
  WHERE e.workspace_id = $1
    AND e.deleted_at IS NULL
    AND NOT e.is_running
    AND e.entry_date BETWEEN $2::date AND $3::date
    AND ($4::uuid IS NULL OR e.user_id = $4::uuid)
    AND ($5::uuid IS NULL OR e.project_id = $5::uuid)
    AND ($6::uuid IS NULL OR e.project_id IN (
      SELECT id FROM projects WHERE workspace_id = $1 AND client_id = $6::uuid
    ))
),
live_payees AS (
  SELECT id, user_id, name, start_date FROM payees WHERE workspace_id = $1 AND deleted_at IS NULL
),
rate_periods AS (
  SELECT
    payee_id, effective_from, hourly_rate, currency,
    lead(effective_from) OVER (PARTITION BY payee_id ORDER BY effective_from) AS next_from
  FROM payee_rates
  WHERE workspace_id = $1 AND deleted_at IS NULL
),
entry_rates AS (
  SELECT e.id, r.hourly_rate, r.currency
  FROM entries e
  JOIN live_payees p
    ON p.user_id = e.user_id AND (p.start_date IS NULL OR e.entry_date >= p.start_date)
  JOIN rate_periods r
    ON r.payee_id = p.id
    AND e.entry_date >= r.effective_from
    AND (r.next_from IS NULL OR e.entry_date < r.next_from)
),
approved_lines AS MATERIALIZED (
  SELECT e.id AS entry_id, e.user_id, e.project_id, e.entry_date, l.bill_id, l.amount,
    b.currency, coalesce(s.scale, ('unknown currency ' || b.currency)::int) AS scale
  FROM entries e
  JOIN team_bill_lines l ON l.workspace_id = $1 AND l.time_entry_id = e.id AND l.kind = 'TIME'
  JOIN team_bills b ON b.workspace_id = $1 AND b.id = l.bill_id
  LEFT JOIN scales s ON s.code = b.currency
  WHERE b.status = 'APPROVED' AND b.deleted_at IS NULL
),
bill_sums AS (
  SELECT bill_id,
    coalesce(sum(amount) FILTER (WHERE kind IN ('TIME', 'EXPENSE')), 0) AS subtotal,
    coalesce(sum(amount) FILTER (WHERE kind = 'ADJUSTMENT'), 0) AS adjustment_total
  FROM team_bill_lines
  WHERE workspace_id = $1 AND bill_id IN (SELECT bill_id FROM approved_lines)
  GROUP BY bill_id
),
bill_payments AS (
  SELECT a.bill_id, sum(a.amount) AS amount_paid
  FROM team_payment_allocations a
  JOIN team_payments p ON p.workspace_id = a.workspace_id AND p.id = a.payment_id
  WHERE a.workspace_id = $1 AND p.status = 'RECORDED' AND p.deleted_at IS NULL
    AND a.bill_id IN (SELECT bill_id FROM approved_lines)
  GROUP BY a.bill_id
),
bills AS (
  SELECT b.bill_id,
    round(coalesce(s.subtotal, 0), b.scale) + round(coalesce(s.adjustment_total, 0), b.scale)
      AS total,
    round(coalesce(p.amount_paid, 0), b.scale) AS paid
  FROM (SELECT DISTINCT bill_id, scale FROM approved_lines) b
  LEFT JOIN bill_sums s ON s.bill_id = b.bill_id
  LEFT JOIN bill_payments p ON p.bill_id = b.bill_id
),
bill_amounts AS (
  SELECT l.user_id, l.project_id, l.entry_date, l.currency,
    round(l.amount, l.scale) AS approved,
    CASE
      WHEN b.total = 0 THEN 0
      WHEN sign(b.total) * (b.paid - b.total) >= 0 THEN round(l.amount, l.scale)
      ELSE round((l.amount * b.paid)::numeric(1000, 30) / b.total, l.scale)
    END AS paid
  FROM approved_lines l
  JOIN bills b ON b.bill_id = l.bill_id
),
invoiced_lines AS MATERIALIZED (
  SELECT e.id AS entry_id, e.user_id, e.project_id, i.currency, i.issue_date, i.total,
    i.amount_paid, n.scale,
    CASE
      WHEN i.subtotal = 0 THEN round(l.amount, n.scale)
      ELSE round(
        (l.amount * (i.subtotal - i.discount_amount))::numeric(1000, 30) / i.subtotal, n.scale
      )
    END AS net
  FROM entries e
  JOIN invoice_lines l ON l.workspace_id = $1 AND l.time_entry_id = e.id
  JOIN invoices i ON i.workspace_id = $1 AND i.id = l.invoice_id
  LEFT JOIN scales s ON s.code = i.currency
  CROSS JOIN LATERAL (
    SELECT coalesce(s.scale, ('unknown currency ' || i.currency)::int) AS scale
  ) n
  WHERE i.deleted_at IS NULL AND i.status IN ('SENT', 'PAID')
),
flagged_entries AS MATERIALIZED (
  SELECT e.*, r.hourly_rate, r.currency AS rate_currency,
    b.entry_id IS NOT NULL AS on_approved_bill,
    i.entry_id IS NOT NULL AS on_sent_invoice
  FROM entries e
  LEFT JOIN entry_rates r ON r.id = e.id
  LEFT JOIN (SELECT DISTINCT entry_id FROM approved_lines) b ON b.entry_id = e.id
  LEFT JOIN (SELECT DISTINCT entry_id FROM invoiced_lines) i ON i.entry_id = e.id
),
-- One row per amount, in its own currency, with the date its FX rate is taken at.
amounts AS (
  SELECT user_id, project_id, 'approvedCost' AS metric, currency, entry_date AS fx_date,
    approved AS amount
  FROM bill_amounts
  UNION ALL
  SELECT user_id, project_id, 'paid', currency, entry_date, paid
  FROM bill_amounts
  UNION ALL
  SELECT f.user_id, f.project_id, 'estimatedCost', f.rate_currency, f.entry_date,
    round(
      (f.duration_seconds * f.hourly_rate)::numeric(1000, 30) / 3600,
      coalesce(s.scale, ('unknown currency ' || f.rate_currency)::int)
    )
  FROM flagged_entries f
  LEFT JOIN scales s ON s.code = f.rate_currency
  WHERE f.hourly_rate IS NOT NULL AND NOT f.on_approved_bill
  UNION ALL
  SELECT user_id, project_id, 'billedNet', currency, issue_date, net
  FROM invoiced_lines
  UNION ALL
  SELECT user_id, project_id, 'collectedNet', currency, issue_date,
    CASE
      WHEN total = 0 THEN 0
      WHEN sign(total) * (amount_paid - total) >= 0 THEN net
      ELSE round((net * amount_paid)::numeric(1000, 30) / total, scale)
    END
  FROM invoiced_lines
),
-- Each FX rate into the base runs from its effective_from to the next one of its currency.
fx_periods AS (
  SELECT r.id, r.from_currency, r.effective_from, r.rate,
    lead(r.effective_from) OVER (PARTITION BY r.from_currency ORDER BY r.effective_from)
      AS next_from
  FROM fx_rates r
  JOIN base ON r.to_currency = base.base_currency
  WHERE r.workspace_id = $1 AND r.deleted_at IS NULL
),
converted AS MATERIALIZED (
  SELECT a.user_id, a.project_id, a.metric, a.currency, a.amount, x.needs_fx, f.id AS fx_rate_id,
    CASE
      WHEN NOT x.needs_fx THEN a.amount
      WHEN f.id IS NOT NULL THEN round(a.amount * f.rate, b.base_scale)
    END AS converted,
    x.needs_fx AND f.id IS NULL AS fx_missing
  FROM amounts a
  CROSS JOIN base b
  CROSS JOIN LATERAL (SELECT a.amount <> 0 AND a.currency <> b.base_currency AS needs_fx) x
  LEFT JOIN fx_periods f
    ON x.needs_fx
    AND f.from_currency = a.currency
    AND a.fx_date >= f.effective_from
    AND (f.next_from IS NULL OR a.fx_date < f.next_from)
),
-- Every row of the report: amounts plus, with metric NULL, one per entry for the entry facts.
report_rows AS (
  SELECT user_id, project_id, metric, converted, fx_missing,
    false AS missing_pay_rate, 0 AS unbilled_seconds
  FROM converted
  UNION ALL
  SELECT user_id, project_id, NULL, NULL, false,
    NOT on_approved_bill AND hourly_rate IS NULL,
    CASE WHEN billable AND NOT on_sent_invoice THEN duration_seconds ELSE 0 END
  FROM flagged_entries
),
-- Level 0: a member's project, 1: a member, 3: the summary (GROUPING of user_id, project_id).
figures AS (
  SELECT user_id, project_id, GROUPING(user_id, project_id) AS level,
    coalesce(sum(converted) FILTER (WHERE metric = 'billedNet'), 0) AS billed_net,
    coalesce(sum(converted) FILTER (WHERE metric = 'collectedNet'), 0) AS collected_net,
    coalesce(sum(converted) FILTER (WHERE metric = 'approvedCost'), 0) AS approved_cost,
    coalesce(sum(converted) FILTER (WHERE metric = 'estimatedCost'), 0) AS estimated_cost,
    coalesce(sum(converted) FILTER (WHERE metric = 'paid'), 0) AS paid,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'billedNet'), false) AS billed_net_fx,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'collectedNet'), false)
      AS collected_net_fx,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'approvedCost'), false)
      AS approved_cost_fx,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'estimatedCost'), false)
      AS estimated_cost_fx,
    coalesce(bool_or(fx_missing) FILTER (WHERE metric = 'paid'), false) AS paid_fx,
    coalesce(bool_or(missing_pay_rate), false) AS missing_pay_rate,
    coalesce(sum(unbilled_seconds), 0) AS unbilled_seconds
  FROM report_rows
  GROUP BY GROUPING SETS ((user_id, project_id), (user_id), ())
),
-- Unconverted sums per row and currency; compensationCost and pending derived per currency.
native_sums AS (
  SELECT user_id, project_id, GROUPING(user_id, project_id) AS level, currency,
    coalesce(sum(amount) FILTER (WHERE metric = 'billedNet'), 0) AS billed_net,
    coalesce(sum(amount) FILTER (WHERE metric = 'collectedNet'), 0) AS collected_net,
    coalesce(sum(amount) FILTER (WHERE metric = 'approvedCost'), 0) AS approved_cost,
    coalesce(sum(amount) FILTER (WHERE metric = 'estimatedCost'), 0) AS estimated_cost,
    coalesce(sum(amount) FILTER (WHERE metric = 'paid'), 0) AS paid
  FROM converted
  GROUP BY GROUPING SETS ((user_id, project_id, currency), (user_id, currency), (currency))
),
native_lists AS (
  SELECT n.user_id, n.project_id, n.level,
    json_agg(
      json_build_object(
        'currency', n.currency,
        'metric', m.metric,
        'amount', round(m.amount, coalesce(s.scale, ('unknown currency ' || n.currency)::int))::text
      )
      ORDER BY m.position, n.currency COLLATE "C"
    ) AS native_amounts
  FROM native_sums n
  CROSS JOIN LATERAL (
    VALUES
      (1, 'billedNet', n.billed_net),
      (2, 'collectedNet', n.collected_net),
      (3, 'compensationCost', n.approved_cost + n.estimated_cost),
      (4, 'approvedCost', n.approved_cost),
      (5, 'estimatedCost', n.estimated_cost),
      (6, 'paid', n.paid),
      (7, 'pending', n.approved_cost - n.paid)
  ) AS m(position, metric, amount)
  LEFT JOIN scales s ON s.code = n.currency
  WHERE m.amount <> 0
  GROUP BY n.user_id, n.project_id, n.level
),
-- Member identity (choice 37): the live payee, its name, else the user's.
member_identities AS (
  SELECT m.user_id, p.id AS payee_id, coalesce(p.name, u.name) AS name
  FROM (SELECT DISTINCT user_id FROM entries) m
  LEFT JOIN live_payees p ON p.user_id = m.user_id
  LEFT JOIN users u ON u.workspace_id = $1 AND u.id = m.user_id
),
metric_rows AS MATERIALIZED (
  SELECT f.level, f.user_id, f.project_id, f.missing_pay_rate,
    CASE f.level WHEN 0 THEN pr.name ELSE mi.name END AS label,
    json_build_object(
      'userId', f.user_id,
      'payeeId', mi.payee_id,
      'name', mi.name,
      'projectId', f.project_id,
      'projectName', pr.name,
      'billedNet', round(f.billed_net, b.base_scale)::text,
      'collectedNet', round(f.collected_net, b.base_scale)::text,
      'compensationCost', round(f.approved_cost + f.estimated_cost, b.base_scale)::text,
      'approvedCost', round(f.approved_cost, b.base_scale)::text,
      'estimatedCost', round(f.estimated_cost, b.base_scale)::text,
      'paid', round(f.paid, b.base_scale)::text,
      'pending', round(f.approved_cost - f.paid, b.base_scale)::text,
      'margin', round(f.billed_net - f.approved_cost - f.estimated_cost, b.base_scale)::text,
      'marginPercent', CASE WHEN f.billed_net <> 0 THEN round(
        ((f.billed_net - f.approved_cost - f.estimated_cost) * 100)::numeric(1000, 30)
          / f.billed_net,
        2
      )::text END,
      'clientUnbilledSeconds', f.unbilled_seconds,
      'missingFx',
        f.billed_net_fx OR f.collected_net_fx OR f.approved_cost_fx OR f.estimated_cost_fx
        OR f.paid_fx,
      'missingPayRate', f.missing_pay_rate,
      'missingMetrics', array_to_json(array_remove(ARRAY[
        CASE WHEN f.billed_net_fx THEN 'billedNet' END,
        CASE WHEN f.collected_net_fx THEN 'collectedNet' END,
        CASE WHEN f.approved_cost_fx OR f.estimated_cost_fx OR f.missing_pay_rate
          THEN 'compensationCost' END,
        CASE WHEN f.approved_cost_fx THEN 'approvedCost' END,
        CASE WHEN f.estimated_cost_fx OR f.missing_pay_rate THEN 'estimatedCost' END,
        CASE WHEN f.paid_fx THEN 'paid' END,
        CASE WHEN f.approved_cost_fx OR f.paid_fx THEN 'pending' END
      ], NULL)),
      'nativeAmounts', coalesce(n.native_amounts, '[]'::json)
    ) AS record
  FROM figures f
  CROSS JOIN base b
  LEFT JOIN member_identities mi ON mi.user_id = f.user_id
  LEFT JOIN projects pr ON pr.workspace_id = $1 AND pr.id = f.project_id
  LEFT JOIN native_lists n
    ON n.level = f.level
    AND n.user_id IS NOT DISTINCT FROM f.user_id
    AND n.project_id IS NOT DISTINCT FROM f.project_id
),
-- Members by name (a missing one last), then user id; projects likewise by name, then id.
members AS MATERIALIZED (
  SELECT r.*,
    row_number() OVER (ORDER BY r.label IS NULL, r.label COLLATE "C", r.user_id) AS position
  FROM metric_rows r
  WHERE r.level = 1
),
page_members AS (
  SELECT m.position, m.record,
    coalesce(
      (SELECT json_agg(p.record ORDER BY p.label IS NULL, p.label COLLATE "C", p.project_id)
       FROM metric_rows p WHERE p.level = 0 AND p.user_id = m.user_id),
      '[]'::json
    ) AS projects
  FROM members m
  WHERE m.position > ($7::bigint - 1) * $8::bigint AND m.position <= $7::bigint * $8::bigint
),
missing_fx AS (
  SELECT c.metric, c.currency,
    round(sum(c.amount), coalesce(s.scale, ('unknown currency ' || c.currency)::int)) AS amount
  FROM converted c
  LEFT JOIN scales s ON s.code = c.currency
  WHERE c.fx_missing
  GROUP BY c.metric, c.currency, s.scale
),
unallocated_revenue AS (
  SELECT currency, sum(net) AS amount, scale
  FROM (
    SELECT i.currency, n.scale,
      CASE
        WHEN i.subtotal = 0 THEN round(l.amount, n.scale)
        ELSE round(
          (l.amount * (i.subtotal - i.discount_amount))::numeric(1000, 30) / i.subtotal, n.scale
        )
      END AS net
    FROM invoices i
    JOIN invoice_lines l ON l.workspace_id = $1 AND l.invoice_id = i.id
    LEFT JOIN scales s ON s.code = i.currency
    CROSS JOIN LATERAL (
      SELECT coalesce(s.scale, ('unknown currency ' || i.currency)::int) AS scale
    ) n
    WHERE i.workspace_id = $1
      AND i.deleted_at IS NULL
      AND i.status IN ('SENT', 'PAID')
      AND i.issue_date BETWEEN $2::date AND $3::date
      AND l.time_entry_id IS NULL
      AND $4::uuid IS NULL
      AND ($6::uuid IS NULL OR i.client_id = $6::uuid)
      AND ($5::uuid IS NULL OR l.project_id = $5::uuid)
  ) lines
  GROUP BY currency, scale
  HAVING sum(net) <> 0
),
unreconciled_receipts AS (
  SELECT i.currency,
    sum(CASE
      WHEN i.status IN ('SENT', 'PAID') THEN greatest(i.amount_paid - i.total, 0)
      WHEN i.status = 'CANCELLED' THEN i.amount_paid
      ELSE 0
    END) AS amount,
    coalesce(s.scale, ('unknown currency ' || i.currency)::int) AS scale
  FROM invoices i
  LEFT JOIN scales s ON s.code = i.currency
  WHERE i.workspace_id = $1
    AND i.deleted_at IS NULL
    AND i.issue_date BETWEEN $2::date AND $3::date
    AND $4::uuid IS NULL
    AND $5::uuid IS NULL
    AND ($6::uuid IS NULL OR i.client_id = $6::uuid)
  GROUP BY i.currency, s.scale
  HAVING sum(CASE
    WHEN i.status IN ('SENT', 'PAID') THEN greatest(i.amount_paid - i.total, 0)
    WHEN i.status = 'CANCELLED' THEN i.amount_paid
    ELSE 0
  END) <> 0
),
-- The live rates into the base from every currency with a non-zero amount to convert.
fx_rates_listed AS (
  SELECT r.*, u.fx_rate_id IS NOT NULL AS used
  FROM fx_rates r
  JOIN base b ON r.to_currency = b.base_currency
  JOIN (SELECT DISTINCT currency FROM converted WHERE needs_fx) c ON c.currency = r.from_currency
  LEFT JOIN (SELECT DISTINCT fx_rate_id FROM converted) u ON u.fx_rate_id = r.id
  WHERE r.workspace_id = $1 AND r.deleted_at IS NULL
)
SELECT
  (SELECT base_currency FROM base) AS base_currency,
  (SELECT count(*) FROM members)::int AS member_total,
  (SELECT count(*) FILTER (WHERE missing_pay_rate) FROM members)::int AS missing_rate_count,
  (SELECT record FROM metric_rows WHERE level = 3) AS summary,
  coalesce(
    (SELECT json_agg(json_build_object('member', record, 'projects', projects) ORDER BY position)
     FROM page_members),
    '[]'::json
  ) AS members,
  coalesce(
    (SELECT json_agg(json_build_object('currency', currency, 'amount', round(amount, scale)::text)
       ORDER BY currency COLLATE "C")
     FROM unallocated_revenue),
    '[]'::json
  ) AS unallocated_revenue,
  coalesce(
    (SELECT json_agg(json_build_object('currency', currency, 'amount', round(amount, scale)::text)
       ORDER BY currency COLLATE "C")
     FROM unreconciled_receipts),
    '[]'::json
  ) AS unreconciled_receipts,
  coalesce(
    (SELECT json_agg(
       json_build_object(
         'fromCurrency', m.currency,
         'toCurrency', (SELECT base_currency FROM base),
         'amount', m.amount::text,
         'metric', m.metric
       )
       ORDER BY array_position(
         ARRAY['billedNet', 'collectedNet', 'approvedCost', 'estimatedCost', 'paid'], m.metric
       ), m.currency COLLATE "C")
     FROM missing_fx m),
    '[]'::json
  ) AS missing_fx,
  coalesce(
    (SELECT json_agg(
       json_build_object(
         'id', r.id,
         'fromCurrency', r.from_currency,
         'toCurrency', r.to_currency,
         'effectiveFrom', to_char(r.effective_from, 'YYYY-MM-DD'),
         'createdAt', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'used', r.used,
         'rate', trim_scale(r.rate)::text
       )
       ORDER BY r.from_currency COLLATE "C", r.effective_from, r.id)
     FROM fx_rates_listed r),
    '[]'::json
  ) AS fx_rates`;

/** A metrics row as the SQL builds it: the API row without `links`. */
type SqlMetricsRow = Omit<ProfitabilityRow, 'links'>;

interface ProfitabilitySqlRow {
  base_currency: string;
  member_total: number;
  missing_rate_count: number;
  summary: SqlMetricsRow;
  members: { member: SqlMetricsRow; projects: SqlMetricsRow[] }[];
  unallocated_revenue: Profitability['unallocatedRevenue'];
  unreconciled_receipts: Profitability['unreconciledReceipts'];
  missing_fx: Profitability['missingFx'];
  fx_rates: Profitability['fxRates'];
}

export interface PgProfitabilityOptions {
  /** Inclusive range of entry dates (YYYY-MM-DD), from <= to; the route's defaults resolved. */
  from: string;
  to: string;
  userId?: string;
  projectId?: string;
  clientId?: string;
  /** 1 and 25 when the request names none. */
  page?: number;
  perPage?: number;
}

/** `data` of GET /team-payouts/profitability (view=work), computed in PostgreSQL. */
export async function pgProfitability(
  db: Queryable,
  workspaceId: string,
  options: PgProfitabilityOptions,
): Promise<Profitability> {
  const page = options.page ?? 1;
  const perPage = options.perPage ?? 25;
  const { rows } = await db.query<ProfitabilitySqlRow>(PROFITABILITY_SQL, [
    workspaceId,
    options.from,
    options.to,
    options.userId?.toLowerCase() ?? null,
    options.projectId?.toLowerCase() ?? null,
    options.clientId?.toLowerCase() ?? null,
    page,
    perPage,
    CURRENCY_CODES,
    CURRENCY_SCALES,
  ]);
  const [row] = rows;
  if (!row) throw new Error('the profitability query returned no row');
  const range = { from: options.from, to: options.to };
  const withLinks = (metrics: SqlMetricsRow): ProfitabilityRow => ({
    ...metrics,
    links: profitabilityLinks(metrics, range),
  });
  return {
    from: options.from,
    to: options.to,
    view: 'work',
    baseCurrency: row.base_currency,
    page,
    perPage,
    memberTotal: row.member_total,
    missingRateCount: row.missing_rate_count,
    summary: withLinks(row.summary),
    members: row.members.map(({ member, projects }): ProfitabilityMember => ({
      ...withLinks(member),
      projectCount: projects.length,
      projects: projects.map(withLinks),
    })),
    unallocatedRevenue: row.unallocated_revenue,
    unreconciledReceipts: row.unreconciled_receipts,
    missingFx: row.missing_fx,
    fxRates: row.fx_rates,
  };
}

/**
 * A row's links as the API makes them (docs/decisions.md, "Profitability"): the report
 * narrowed to the row over the same range, the member's payee, the project; never a task.
 */
function profitabilityLinks(
  row: SqlMetricsRow,
  range: { from: string; to: string },
): ProfitabilityRow['links'] {
  const query = new URLSearchParams(range);
  if (row.userId) query.set('userId', row.userId);
  if (row.projectId) query.set('projectId', row.projectId);
  return {
    app: `/app/team/profitability?${query.toString()}`,
    payee: row.payeeId ? `/app/team/payees/${row.payeeId}` : '',
    project: row.projectId ? `/app/projects/${row.projectId}` : '',
    task: '',
  };
}
