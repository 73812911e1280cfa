// GET /team-payouts/unpaid-time, first page of the default sort (-createdAt, then -id),
// computed in PostgreSQL (the conventions of every statement: common.ts).
import { links } from '../../src/reports/team-payouts/links.ts';
import type { UnpaidTimeRecord } from '../../src/reports/team-payouts/unpaid-time.ts';
import { CURRENCY_CODES, CURRENCY_SCALES, OWED_TIME_CTES, type Queryable } from './common.ts';

// $1 workspace, $2 currency filter or NULL, $3 every section (scope=all), $4 limit, $5 codes,
// $6 scales. Items (docs/contract.md, "Unpaid-time item"; test/reference/README.md, choices
// 11-17): the payable entries of `payable` in payout-summary.ts that have a rate. hourlyRate
// keeps up to four decimals when they are not zeros, at least the currency's scale; amount =
// duration x rate / 3600 rounded to the rate currency.
const UNPAID_FIRST_PAGE_SQL = `
WITH scales AS (
  SELECT code, scale FROM unnest($5::text[], $6::int[]) AS s(code, scale)
),
live_payees AS (
  SELECT id, user_id, name, start_date FROM payees WHERE workspace_id = $1 AND deleted_at IS NULL
),
${OWED_TIME_CTES},
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
