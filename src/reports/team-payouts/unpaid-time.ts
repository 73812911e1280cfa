import { z } from 'zod';
import { integer, money, rate, text } from '../../api/record-values.ts';
import { currencyCode, isoDate, moneyText, uuid } from '../../value-schemas.ts';
import type { Caller } from '../../api/caller.ts';
import type { ListEndpoint } from '../../api/list/list-endpoint.ts';
import {
  currencyText,
  cursorParam,
  limitParam,
  once,
  sortParam,
} from '../../api/list/list-query.ts';
import type { SqlParams } from '../../readmodel/sql-params.ts';
import { links, linksRecord } from './links.ts';

/**
 * An unpaid-time item as the API answers it (docs/contract.md, "Team unpaid-time item" and
 * "Unpaid-time item").
 */
export const unpaidTimeRecord = z.object({
  id: uuid,
  timeEntryId: uuid,
  payeeId: uuid,
  userId: uuid,
  projectId: uuid,
  rateId: uuid,
  name: z.string(),
  projectName: z.string().nullable(),
  taskId: uuid.nullable(),
  taskName: z.string().nullable(),
  description: z.string().nullable(),
  currency: currencyCode,
  workDate: isoDate,
  durationSeconds: z.int(),
  hourlyRate: moneyText,
  amount: moneyText,
  section: z.enum(['default', 'non_billable']),
  selectedByDefault: z.boolean(),
  links: linksRecord,
});
export type UnpaidTimeRecord = z.infer<typeof unpaidTimeRecord>;

export const UNPAID_SORT_FIELDS = ['id', 'entryDate', 'durationSeconds', 'createdAt'] as const;

/**
 * GET /team-payouts/unpaid-time query (docs/contract.md, "Team payout queries"): cursor, limit,
 * sort, currency and scope (`default`: billable work; `all` adds the non_billable section); strict.
 */
export const unpaidTimeQuery = z.object({
  cursor: cursorParam.optional(),
  limit: limitParam.optional(),
  sort: sortParam(UNPAID_SORT_FIELDS).optional(),
  currency: once(currencyText).optional(),
  scope: once(z.enum(['default', 'all'], { error: 'must be default or all' })).optional(),
});
export type UnpaidTimeQuery = z.output<typeof unpaidTimeQuery>;

/**
 * The columns unpaid_time_items filters and sorts on, straight from payee_entry_pay: the page
 * is chosen there, and only its items are priced and named by the view.
 */
const UNPAID_ROWS = `(
  SELECT time_entry_id AS id, workspace_id, rate_currency AS currency,
    rate_currency_key AS currency_key, billable, created_at, entry_date AS work_date,
    duration_seconds
  FROM payee_entry_pay WHERE rate_id IS NOT NULL) r`;

/**
 * The key currency_key (sql/duckdb/macros.sql) gives `code`: three capitals A-Z read in base
 * 26, or null for any other text, which has no key of its own.
 */
export function currencyKey(code: string): number | null {
  if (!/^[A-Z]{3}$/.test(code)) return null;
  return [...code].reduce((key, letter) => key * 26 + letter.charCodeAt(0) - 65, 0);
}

/**
 * Items in `currency`: their SMALLINT key compared, which DuckDB filters in its scan of the
 * payable entries for less than the VARCHAR costs (the first page's statement: 31 against 44 ms
 * on the 10M-entry workspace). A code of another form has no key and compares as text.
 */
function currencyFilter(currency: string, params: SqlParams): string {
  const key = currencyKey(currency);
  return key === null
    ? `r.currency = ${params.bind(currency, 'CURRENCY')}`
    : `r.currency_key = ${params.bind(key, 'INTEGER')}`;
}

export const unpaidTimeList: ListEndpoint<UnpaidTimeQuery> = {
  name: 'team-payouts/unpaid-time',
  from: 'unpaid_time_items r',
  rowsFrom: UNPAID_ROWS,
  // An item's columns come from its time entry (the item's id is the entry's), its payee's name
  // and rate, and its project's and task's names: a change to an entry drops that item's row,
  // a change to the others drops the list. Bills decide only which entries are listed, and the
  // page's ids are always chosen afresh. Without the cache, reading the page's 51 rows back
  // scans every payable entry again (about 20 ms of a first page on the 10M-entry workspace).
  cached: { table: 'time_entries', dependsOn: ['payees', 'payee_rates', 'projects', 'tasks'] },
  select: `r.id, r.time_entry_id, r.payee_id, r.user_id, r.project_id, r.rate_id, r.name,
    r.project_name, r.task_id, r.task_name, r.description, r.currency,
    CAST(r.work_date AS VARCHAR) AS work_date, r.duration_seconds,
    CAST(r.hourly_rate AS VARCHAR) AS hourly_rate, CAST(r.amount AS VARCHAR) AS amount,
    r.section, r.selected_by_default`,
  sortKeys: {
    id: { expression: 'r.id', type: 'uuid' },
    createdAt: { expression: 'r.created_at', type: 'timestamp' },
    entryDate: { expression: 'r.work_date', type: 'date' },
    durationSeconds: { expression: 'r.duration_seconds', type: 'integer' },
  },
  where(query: UnpaidTimeQuery, params: SqlParams, caller: Caller): string[] {
    return [
      `r.workspace_id = ${params.bind(caller.workspaceId, 'UUID')}`,
      // The default section is the billable items: the column itself, which DuckDB filters in
      // its scan (a comparison of the section's CASE was computed for every row: 77 ms against
      // 59 for the first page of 2.2M items).
      ...((query.scope ?? 'default') === 'default' ? ['r.billable'] : []),
      ...(query.currency ? [currencyFilter(query.currency, params)] : []),
    ];
  },
  toRecord(row): UnpaidTimeRecord {
    const currency = text(row.currency)!;
    const id = text(row.id)!;
    return {
      id,
      timeEntryId: text(row.time_entry_id)!,
      payeeId: text(row.payee_id)!,
      userId: text(row.user_id)!,
      projectId: text(row.project_id)!,
      rateId: text(row.rate_id)!,
      name: text(row.name)!,
      projectName: text(row.project_name),
      taskId: text(row.task_id),
      taskName: text(row.task_name),
      description: text(row.description),
      currency,
      workDate: text(row.work_date)!,
      durationSeconds: integer(row.duration_seconds)!,
      hourlyRate: rate(row.hourly_rate, currency)!,
      amount: money(row.amount, currency)!,
      section: text(row.section) as UnpaidTimeRecord['section'],
      selectedByDefault: row.selected_by_default === true,
      links: links(`/app/team-payouts/unpaid-time/${id}`, {
        payeeId: text(row.payee_id),
        projectId: text(row.project_id),
        taskId: text(row.task_id),
      }),
    };
  },
};
