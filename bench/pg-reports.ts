// The team-payout reports computed directly in PostgreSQL, over the operational tables of
// sql/postgres/: the baseline the report benchmarks compare the API (DuckDB read model) with.
// test/pg-reports.test.ts checks that every function returns exactly the `data` of its
// endpoint on generated workspaces.
//
// Every rule is SQL run by PostgreSQL (decisions 7, 8 and 9, with the choices of
// test/reference/README.md that the DuckDB views make); TypeScript only binds the parameters
// and shapes the rows. Money stays NUMERIC in PostgreSQL and arrives as text already rounded to
// its currency's scale: `round(numeric, s)` rounds half away from zero and never yields "-0.00",
// and a NUMERIC rounded to s decimals prints exactly s of them.
//
// Three conventions hold in every statement:
// * Currency scales come in as two bound arrays (`scales` CTE, from src/money/currencies.ts),
//   since the store has no currency table. A currency missing there is an error, never a guessed
//   scale: `coalesce(scale, ('unknown currency ' || code)::int)` fails the cast with that text.
// * A division that is then rounded divides a dividend lifted to 30 decimals
//   (`::numeric(1000, 30)`): by default PostgreSQL divides to 16 significant digits only, and a
//   quotient rounded there could round again the wrong way at the currency's scale.
// * Text is ordered with COLLATE "C" (code-point order, as DuckDB sorts), whatever the
//   database's collation.
import type pg from 'pg';
import { allCurrencyScales } from '../src/money/currencies.ts';
import type { PayoutSummary } from '../src/reports/payout-summary/payout-summary.schema.ts';
import type {
  Profitability,
  ProfitabilityMember,
  ProfitabilityRow,
} from '../src/reports/profitability/profitability.schema.ts';
import { links } from '../src/reports/team-payouts/links.ts';
import type { UnpaidTimeRecord } from '../src/reports/team-payouts/unpaid-time.ts';

/** A pool or a connected client: anything that runs a query. */
type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

const CURRENCY_CODES = allCurrencyScales().map(([code]) => code);
const CURRENCY_SCALES = allCurrencyScales().map(([, scale]) => scale);

// ---------------------------------------------------------------------------------------------
// GET /team-payouts/summary

// $1 workspace, $2 today, $3 currency filter or NULL, $4 codes, $5 scales.
// The payee's rate of an entry is the live rate in force on its entry date: each rate runs from
// its effective_from to the next one of its payee (one live rate per payee and day).
// `payable`: entries owed but not on an APPROVED bill (decisions 7, test/reference choices
// 12-13, 24): live, of a live payee, not running, > 0 s, on/after the payee's start date, on no
// line (any kind) of a live APPROVED bill; with or without a rate, billable or not.
const SUMMARY_SQL = `
WITH scales AS (
  SELECT code, scale FROM unnest($4::text[], $5::int[]) AS s(code, scale)
),
live_payees AS (
  SELECT id, user_id, start_date FROM payees WHERE workspace_id = $1 AND deleted_at IS NULL
),
rate_periods AS (
  SELECT
    id, payee_id, effective_from, hourly_rate, currency,
    lead(effective_from) OVER (PARTITION BY payee_id ORDER BY effective_from) AS next_from
  FROM payee_rates
  WHERE workspace_id = $1 AND deleted_at IS NULL
),
entries_on_approved_bills AS (
  SELECT DISTINCT l.time_entry_id
  FROM team_bill_lines l
  JOIN team_bills b ON b.workspace_id = l.workspace_id AND b.id = l.bill_id
  WHERE l.workspace_id = $1 AND b.status = 'APPROVED' AND b.deleted_at IS NULL
    AND l.time_entry_id IS NOT NULL
),
payable AS (
  SELECT p.id AS payee_id, e.entry_date, e.duration_seconds, e.billable, r.id AS rate_id,
    r.hourly_rate, r.currency
  FROM time_entries e
  JOIN live_payees p ON p.user_id = e.user_id
  LEFT JOIN rate_periods r
    ON r.payee_id = p.id
    AND e.entry_date >= r.effective_from
    AND (r.next_from IS NULL OR e.entry_date < r.next_from)
  WHERE e.workspace_id = $1
    AND e.deleted_at IS NULL
    AND NOT e.is_running
    AND e.duration_seconds > 0
    AND (p.start_date IS NULL OR e.entry_date >= p.start_date)
    AND NOT EXISTS (SELECT 1 FROM entries_on_approved_bills a WHERE a.time_entry_id = e.id)
),
-- Default-scope unpaid items (billable, priced), each amount rounded to its rate currency.
accrued AS (
  SELECT
    i.currency,
    sum(i.duration_seconds) AS eligible_seconds,
    min(i.entry_date) AS unbilled_from,
    max(i.entry_date) AS unbilled_to,
    sum(round(
      (i.duration_seconds * i.hourly_rate)::numeric(1000, 30) / 3600,
      coalesce(s.scale, ('unknown currency ' || i.currency)::int)
    )) AS accrued
  FROM payable i
  LEFT JOIN scales s ON s.code = i.currency
  WHERE i.rate_id IS NOT NULL AND i.billable
  GROUP BY i.currency
),
-- Bill figures (decisions 7, "Bill amounts") of the live APPROVED bills.
bill_lines AS (
  SELECT bill_id,
    coalesce(sum(amount) FILTER (WHERE kind IN ('TIME', 'EXPENSE')), 0)
      + coalesce(sum(amount) FILTER (WHERE kind = 'ADJUSTMENT'), 0) AS total
  FROM team_bill_lines
  WHERE workspace_id = $1
  GROUP BY bill_id
),
bill_payments AS (
  SELECT a.bill_id, sum(a.amount) AS amount_paid
  FROM team_payment_allocations a
  JOIN team_payments p ON p.workspace_id = a.workspace_id AND p.id = a.payment_id
  WHERE a.workspace_id = $1 AND p.status = 'RECORDED' AND p.deleted_at IS NULL
  GROUP BY a.bill_id
),
approved_bills AS (
  SELECT b.currency, b.due_date, coalesce(l.total, 0) AS total,
    coalesce(p.amount_paid, 0) AS amount_paid,
    greatest(coalesce(l.total, 0) - coalesce(p.amount_paid, 0), 0) AS remaining
  FROM team_bills b
  LEFT JOIN bill_lines l ON l.bill_id = b.id
  LEFT JOIN bill_payments p ON p.bill_id = b.id
  WHERE b.workspace_id = $1 AND b.status = 'APPROVED' AND b.deleted_at IS NULL
),
approved AS (
  SELECT currency, sum(total) AS approved, sum(amount_paid) AS paid,
    sum(remaining) AS outstanding,
    coalesce(sum(remaining) FILTER (WHERE due_date < $2::date), 0) AS overdue
  FROM approved_bills
  GROUP BY currency
),
credits AS (
  SELECT c.currency, sum(c.remaining) AS credit
  FROM payee_credits c
  JOIN live_payees p ON p.id = c.payee_id
  WHERE c.workspace_id = $1 AND c.deleted_at IS NULL
  GROUP BY c.currency
),
listed AS (
  SELECT currency FROM accrued
  UNION SELECT currency FROM approved
  UNION SELECT currency FROM credits
),
currency_rows AS (
  SELECT l.currency, coalesce(a.eligible_seconds, 0) AS eligible_seconds,
    json_build_object(
      'currency', l.currency,
      'eligibleSeconds', coalesce(a.eligible_seconds, 0),
      'unbilledFrom', to_char(a.unbilled_from, 'YYYY-MM-DD'),
      'unbilledTo', to_char(a.unbilled_to, 'YYYY-MM-DD'),
      'accrued', round(coalesce(a.accrued, 0), sc.scale)::text,
      'approved', round(coalesce(b.approved, 0), sc.scale)::text,
      'paid', round(coalesce(b.paid, 0), sc.scale)::text,
      'outstanding', round(coalesce(b.outstanding, 0), sc.scale)::text,
      'overdue', round(coalesce(b.overdue, 0), sc.scale)::text,
      'credit', round(coalesce(c.credit, 0), sc.scale)::text
    ) AS record
  FROM listed l
  LEFT JOIN accrued a ON a.currency = l.currency
  LEFT JOIN approved b ON b.currency = l.currency
  LEFT JOIN credits c ON c.currency = l.currency
  CROSS JOIN LATERAL (
    SELECT coalesce(
      (SELECT scale FROM scales WHERE code = l.currency),
      ('unknown currency ' || l.currency)::int
    ) AS scale
  ) sc
  WHERE $3::text IS NULL OR l.currency = $3::text
),
last_payment AS (
  SELECT p.paid_date, p.currency,
    round(p.amount, coalesce(s.scale, ('unknown currency ' || p.currency)::int)) AS amount
  FROM team_payments p
  LEFT JOIN scales s ON s.code = p.currency
  WHERE p.workspace_id = $1 AND p.status = 'RECORDED' AND p.deleted_at IS NULL
    AND ($3::text IS NULL OR p.currency = $3::text)
  ORDER BY p.paid_date DESC, p.created_at DESC, p.id DESC
  LIMIT 1
)
SELECT
  coalesce(
    (SELECT json_agg(record ORDER BY currency COLLATE "C") FROM currency_rows), '[]'::json
  ) AS currencies,
  (SELECT count(DISTINCT payee_id) FROM payable WHERE rate_id IS NULL)::int AS missing_rate_count,
  (SELECT coalesce(sum(eligible_seconds), 0) FROM currency_rows)::text AS eligible_seconds,
  (SELECT count(*) FROM live_payees)::int AS member_count,
  to_char(lp.paid_date, 'YYYY-MM-DD') AS last_payment_date,
  lp.amount::text AS last_payment_amount,
  lp.currency AS last_payment_currency
FROM (SELECT 1) AS one_row
LEFT JOIN last_payment lp ON true`;

interface SummaryRow {
  currencies: PayoutSummary['currencies'];
  missing_rate_count: number;
  eligible_seconds: string;
  member_count: number;
  last_payment_date: string | null;
  last_payment_amount: string | null;
  last_payment_currency: string | null;
}

export interface PgPayoutSummaryOptions {
  /** Narrows `currencies`, the top-level `eligibleSeconds` and the last payment. */
  currency?: string;
  /** Today in the workspace time zone (YYYY-MM-DD), as the route computes it (todayIn). */
  today: string;
  /** The caller is Owner or Admin and has the `write` scope: passed through. */
  canManage: boolean;
}

/** `data` of GET /team-payouts/summary[?currency=], computed in PostgreSQL. */
export async function pgPayoutSummary(
  db: Queryable,
  workspaceId: string,
  options: PgPayoutSummaryOptions,
): Promise<PayoutSummary> {
  const { rows } = await db.query<SummaryRow>(SUMMARY_SQL, [
    workspaceId,
    options.today,
    options.currency?.toUpperCase() ?? null,
    CURRENCY_CODES,
    CURRENCY_SCALES,
  ]);
  const [row] = rows;
  if (!row) throw new Error('the payout summary query returned no row');
  return {
    canManage: options.canManage,
    currencies: row.currencies,
    missingRateCount: row.missing_rate_count,
    eligibleSeconds: safeInteger(row.eligible_seconds),
    memberCount: row.member_count,
    lastPaymentDate: row.last_payment_date,
    lastPaymentAmount: row.last_payment_amount,
    lastPaymentCurrency: row.last_payment_currency,
  };
}

// ---------------------------------------------------------------------------------------------
// GET /team-payouts/unpaid-time, first page of the default sort (-createdAt, then -id)

// $1 workspace, $2 currency filter or NULL, $3 every section (scope=all), $4 limit, $5 codes,
// $6 scales. Items (decisions 7, choices 11-17): the payable entries of `payable` above that
// have a rate. hourlyRate keeps up to four decimals when they are not zeros, at least the
// currency's scale; amount = duration x rate / 3600 rounded to the rate currency.
const UNPAID_FIRST_PAGE_SQL = `
WITH scales AS (
  SELECT code, scale FROM unnest($5::text[], $6::int[]) AS s(code, scale)
),
live_payees AS (
  SELECT id, user_id, name, start_date FROM payees WHERE workspace_id = $1 AND deleted_at IS NULL
),
rate_periods AS (
  SELECT
    id, payee_id, effective_from, hourly_rate, currency,
    lead(effective_from) OVER (PARTITION BY payee_id ORDER BY effective_from) AS next_from
  FROM payee_rates
  WHERE workspace_id = $1 AND deleted_at IS NULL
),
entries_on_approved_bills AS (
  SELECT DISTINCT l.time_entry_id
  FROM team_bill_lines l
  JOIN team_bills b ON b.workspace_id = l.workspace_id AND b.id = l.bill_id
  WHERE l.workspace_id = $1 AND b.status = 'APPROVED' AND b.deleted_at IS NULL
    AND l.time_entry_id IS NOT NULL
),
items AS (
  SELECT
    e.id, p.id AS payee_id, e.user_id, e.project_id, r.id AS rate_id, p.name,
    pr.name AS project_name, e.task_id, t.name AS task_name, e.note AS description,
    r.currency, e.entry_date, e.duration_seconds, r.hourly_rate, e.billable, e.created_at,
    coalesce(s.scale, ('unknown currency ' || r.currency)::int) AS scale
  FROM time_entries e
  JOIN live_payees p ON p.user_id = e.user_id
  JOIN rate_periods r
    ON r.payee_id = p.id
    AND e.entry_date >= r.effective_from
    AND (r.next_from IS NULL OR e.entry_date < r.next_from)
  LEFT JOIN scales s ON s.code = r.currency
  LEFT JOIN projects pr ON pr.workspace_id = e.workspace_id AND pr.id = e.project_id
  LEFT JOIN tasks t ON t.workspace_id = e.workspace_id AND t.id = e.task_id
  WHERE e.workspace_id = $1
    AND e.deleted_at IS NULL
    AND NOT e.is_running
    AND e.duration_seconds > 0
    AND (p.start_date IS NULL OR e.entry_date >= p.start_date)
    AND NOT EXISTS (SELECT 1 FROM entries_on_approved_bills a WHERE a.time_entry_id = e.id)
    AND ($3::boolean OR e.billable)
    AND ($2::text IS NULL OR r.currency = $2::text)
)
SELECT
  id, payee_id, user_id, project_id, rate_id, name, project_name, task_id, task_name,
  description, currency, to_char(entry_date, 'YYYY-MM-DD') AS work_date, duration_seconds,
  round(hourly_rate, least(4, greatest(scale, scale(trim_scale(hourly_rate)))))::text
    AS hourly_rate,
  round((duration_seconds * hourly_rate)::numeric(1000, 30) / 3600, scale)::text AS amount,
  billable
FROM items
ORDER BY created_at DESC, id DESC
LIMIT $4`;

interface UnpaidRow {
  id: string;
  payee_id: string;
  user_id: string;
  project_id: string;
  rate_id: string;
  name: string;
  project_name: string | null;
  task_id: string | null;
  task_name: string | null;
  description: string | null;
  currency: string;
  work_date: string;
  duration_seconds: number;
  hourly_rate: string;
  amount: string;
  billable: boolean;
}

export interface PgUnpaidTimeOptions {
  /** Rate currency filter (the route upper-cases it). */
  currency?: string;
  /** `default` (billable work, the route's default) or `all` (adds non_billable). */
  scope?: 'default' | 'all';
  /** Page size: 50 when the request names none. */
  limit: number;
}

/**
 * `data` of the first page of GET /team-payouts/unpaid-time in its default sort (-createdAt,
 * ties by -id), computed in PostgreSQL.
 */
export async function pgUnpaidTimeFirstPage(
  db: Queryable,
  workspaceId: string,
  options: PgUnpaidTimeOptions,
): Promise<UnpaidTimeRecord[]> {
  const { rows } = await db.query<UnpaidRow>(UNPAID_FIRST_PAGE_SQL, [
    workspaceId,
    options.currency?.toUpperCase() ?? null,
    options.scope === 'all',
    options.limit,
    CURRENCY_CODES,
    CURRENCY_SCALES,
  ]);
  return rows.map(unpaidRowToRecord);
}

function unpaidRowToRecord(row: UnpaidRow): UnpaidTimeRecord {
  return {
    id: row.id,
    timeEntryId: row.id,
    payeeId: row.payee_id,
    userId: row.user_id,
    projectId: row.project_id,
    rateId: row.rate_id,
    name: row.name,
    projectName: row.project_name,
    taskId: row.task_id,
    taskName: row.task_name,
    description: row.description,
    currency: row.currency,
    workDate: row.work_date,
    durationSeconds: row.duration_seconds,
    hourlyRate: row.hourly_rate,
    amount: row.amount,
    section: row.billable ? 'default' : 'non_billable',
    selectedByDefault: row.billable,
    links: links(`/app/team-payouts/unpaid-time/${row.id}`, {
      payeeId: row.payee_id,
      projectId: row.project_id,
      taskId: row.task_id,
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// GET /team-payouts/profitability (view=work)

// $1 workspace, $2 from, $3 to, $4 userId, $5 projectId, $6 clientId (NULL: no filter), $7 page,
// $8 perPage, $9 codes, $10 scales. Decisions 8 and 9 with test/reference choices 26-42:
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

function safeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`expected a safe integer, got ${text}`);
  return n;
}
