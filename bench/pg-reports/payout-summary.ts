// GET /team-payouts/summary computed in PostgreSQL (the conventions of every statement:
// common.ts).
import type { PayoutSummary } from '../../src/reports/payout-summary/payout-summary.schema.ts';
import { CURRENCY_CODES, CURRENCY_SCALES, OWED_TIME_CTES, type Queryable } from './common.ts';

// $1 workspace, $2 today, $3 currency filter or NULL, $4 codes, $5 scales.
// The payee's rate of an entry is the live rate in force on its entry date: each rate runs from
// its effective_from to the next one of its payee (one live rate per payee and day).
// `payable`: entries owed but not on an APPROVED bill (docs/contract.md, "Unpaid-time item" and
// "Summary totals"; test/reference/README.md, choices 12-13, 24): live, of a live payee, not
// running, > 0 s, on/after the payee's start date, on no line (any kind) of a live APPROVED
// bill; with or without a rate, billable or not.
const SUMMARY_SQL = `
WITH scales AS (
  SELECT code, scale FROM unnest($4::text[], $5::int[]) AS s(code, scale)
),
live_payees AS (
  SELECT id, user_id, start_date FROM payees WHERE workspace_id = $1 AND deleted_at IS NULL
),
${OWED_TIME_CTES},
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
-- Bill figures (docs/contract.md, "Bill amounts") of the live APPROVED bills.
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

function safeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`expected a safe integer, got ${text}`);
  return n;
}
