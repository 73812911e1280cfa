import type { DuckDBConnection, DuckDBResultReader } from '@duckdb/node-api';
import { z } from 'zod';
import { SqlParams } from '../../http/list/sql-params.ts';
import { type PlanCache, readDataVersion } from '../../readmodel/plan-cache.ts';
import { type KeptPages, readKeptReport } from './profitability.kept.ts';
import { wholeMonths, wholeMonthsOf } from './profitability.range.ts';

export interface ProfitabilityParams {
  workspaceId: string;
  /** Inclusive range of entry dates (YYYY-MM-DD), from <= to. */
  from: string;
  to: string;
  userId?: string;
  projectId?: string;
  clientId?: string;
  page: number;
  perPage: number;
}

// The rules live in the table macros of sql/duckdb/views/profitability_*.sql; these statements
// only pass the caller's values to them, as literals of their types (SqlParams writes ids,
// dates and numbers so once their form is checked; as parameters, DuckDB would bind this large
// statement twice, 15-20 ms). A filter not asked for is a NULL constant, so that DuckDB plans
// it away. The range's whole months are computed here once, for the report and the day cells
// alike, so the two never disagree (NULL when there is none).
interface ReportArgs {
  ws: string;
  from: string;
  to: string;
  wholeFrom: string;
  wholeTo: string;
  /** user, project and client filters */
  filters: string;
  sql: SqlParams;
}

function reportArgs(params: ProfitabilityParams): ReportArgs {
  const sql = new SqlParams();
  const whole = wholeMonthsOf(params.from, params.to);
  const uuid = (value: string | undefined) =>
    value === undefined ? 'NULL::UUID' : sql.bind(value, 'UUID');
  const date = (value: string | undefined) =>
    value === undefined ? 'NULL::DATE' : sql.bind(value, 'DATE');
  return {
    ws: uuid(params.workspaceId),
    from: date(params.from),
    to: date(params.to),
    wholeFrom: date(whole?.from),
    wholeTo: date(whole?.to),
    filters: `${uuid(params.userId)}, ${uuid(params.projectId)}, ${uuid(params.clientId)}`,
    sql,
  };
}

// The rows come as profitability_report_api writes them: each row's JSON text, ordered by part,
// member and place (sql/duckdb/views/profitability_report_api.sql). A month of the 10M-entry
// workspace is about 6,000 rows and 1.5 MB; joined as text, they are never parsed, formatted
// and printed again in JavaScript (which took 80 ms of a month's report, a third of it in GC).
// They leave DuckDB as one text, fields and rows apart by the control characters US and RS,
// which JSON text never holds unescaped: the client decodes each value of a result on its own,
// and 6,000 rows of five columns took it about 40 ms, one text of them 2.
const FIELD = '\x1f';
const ROW = '\x1e';
const reportSql = (args: ReportArgs, page: number, perPage: number) =>
  `SELECT string_agg(
      concat_ws(chr(${FIELD.charCodeAt(0)}), part, coalesce(owner, ''),
        coalesce(CAST(member_position AS VARCHAR), ''), coalesce(CAST(links AS VARCHAR), ''),
        CAST(json AS VARCHAR)),
      chr(${ROW.charCodeAt(0)}) ORDER BY part, member_position, position, place_name_missing,
        place_name, place_project_id, place_metric_position, place_currency
    ) AS rows
    FROM profitability_report_api(
      ${args.ws}, ${args.from}, ${args.to}, ${args.wholeFrom}, ${args.wholeTo}, ${args.filters},
      ${args.sql.bind(page, 'BIGINT')}, ${args.sql.bind(perPage, 'BIGINT')}
    )`;

// The days of partly covered months, computed from the entries into the report's scratch table.
const dayCellsSql = (args: ReportArgs) => `
  INSERT INTO profitability_report_day_cells BY NAME
  SELECT ${args.ws} AS workspace_id, *
  FROM profitability_cells(
    ${args.ws}, ${args.from}, ${args.to}, ${args.filters},
    skip_from := ${args.wholeFrom},
    skip_to := ${args.wholeTo}
  )`;

/**
 * Computes the days of the range's partly covered months into profitability_report_day_cells,
 * for the report to read. Call inside the read transaction that then reads the report and
 * rolls back: the rows are this transaction's only. Nothing to do for whole months.
 */
export async function fillDayCells(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
  args: ReportArgs = reportArgs(params),
): Promise<void> {
  if (wholeMonths(params.from, params.to)) return;
  const text = dayCellsSql(args);
  await connection.run(text, args.sql.valuesIn(text));
}

/** The JSON text of a record, to send as it is. */
export interface JsonText {
  readonly json: string;
}

/** A report's record, and whether it was served from a kept report. */
export interface ProfitabilityText extends JsonText {
  /** 'kept': a whole month's or twelve months' report kept ready (profitability.periods.ts). */
  readonly source: 'kept' | 'computed';
  /** The report's members, over every page. */
  readonly memberTotal: number;
}

/**
 * The profitability report of one workspace (decisions 8) as the JSON text of the API's record,
 * answered from the read model in one snapshot (a statement, or a read transaction), so every
 * figure comes from the same sync. A whole month or twelve whole months, of the team or one member, is served from its
 * kept report when that is current (profitability.kept.ts); anything else is computed from the
 * cells.
 * `connection` must not be inside a transaction already; `plans` are its kept plans: the
 * report's statement takes DuckDB 25-40 ms to plan, so a report asked for again with the same
 * data runs the plan made the first time (docs/summaries.md, "Plans kept between requests").
 */
export async function loadProfitability(
  connection: DuckDBConnection,
  plans: PlanCache,
  params: ProfitabilityParams,
  options: { kept?: boolean; pages?: KeptPages } = {},
): Promise<ProfitabilityText> {
  if (options.kept !== false) {
    const kept = await readKeptReport(connection, params, options.pages);
    if (kept !== undefined) {
      return { json: renderReport(kept, params), source: 'kept', memberTotal: kept.memberTotal };
    }
  }
  await connection.run('BEGIN TRANSACTION');
  try {
    const parts = await computeReport(connection, params, async (text) =>
      plans.runAndReadAll(text, await readDataVersion(connection)),
    );
    return {
      json: renderReport(parts, params),
      source: 'computed',
      memberTotal: parts.memberTotal,
    };
  } finally {
    // Nothing is kept: ROLLBACK ends the read transaction and drops the scratch day cells,
    // also after a failed read.
    await connection.run('ROLLBACK');
  }
}

/**
 * The report's parts computed from the cells, inside the caller's open transaction (which must
 * be rolled back if the range has partly covered months: their days are scratch rows).
 * `runPlanned` runs the report's statement when it has no parameters (with a kept plan, say).
 */
export async function computeReport(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
  runPlanned: (text: string) => Promise<DuckDBResultReader> = (text) =>
    connection.runAndReadAll(text),
): Promise<ReportParts> {
  const args = reportArgs(params);
  // The days are computed on every request: DuckDB 1.5.5 fails fatally (a NULL unique_ptr,
  // which invalidates the database) preparing this INSERT of a table macro's rows.
  await fillDayCells(connection, params, args);
  const text = reportSql(args, params.page, params.perPage);
  const values = args.sql.valuesIn(text);
  const reader = values ? await connection.runAndReadAll(text, values) : await runPlanned(text);
  const [[joined]] = reader.getRows() as [[string | null]];
  return reportParts(splitRows(joined ?? ''));
}

type ReportRow = [
  part: string,
  owner: string | null,
  memberPosition: string | null,
  links: string | null,
  json: string,
];

/** The rows of reportSql's one text; an empty field is NULL (no field is ever empty text). */
function splitRows(joined: string): ReportRow[] {
  if (joined === '') return [];
  return joined.split(ROW).map((row) => {
    const [part, owner, memberPosition, links, json] = row.split(FIELD) as [
      string,
      string,
      string,
      string,
      string,
    ];
    return [part, owner || null, memberPosition || null, links || null, json];
  });
}

/**
 * What a report's record holds beyond the request's own values, as JSON texts: the summary,
 * each member of the page (with its projects) in order, and the items of each list.
 */
export interface ReportParts {
  baseCurrency: string;
  memberTotal: number;
  missingRateCount: number;
  summary: string;
  members: string[];
  unallocatedRevenue: string[];
  unreconciledReceipts: string[];
  missingFx: string[];
  fxRates: string[];
}

/**
 * Puts the rows' texts together into the record's parts (profitability.schema.ts): each
 * metrics row with its nativeAmounts and links, each member with its projects, each list in its
 * rows' order. Every figure, text and order comes from the SQL.
 */
function reportParts(rows: ReportRow[]): ReportParts {
  // Native amounts sort after members: they are gathered before any metrics row is written.
  const natives = new Map<string | null, string[]>();
  for (const [part, owner, , , json] of rows) if (part === 'native') push(natives, owner, json);
  // A row's text is a JSON object: what is added goes in before its closing brace.
  const metricsRow = ([, owner, , links, json]: ReportRow) =>
    `${json.slice(0, -1)},"nativeAmounts":[${(natives.get(owner) ?? []).join(',')}],"links":${links}}`;
  const parts = new Map<string, string[]>();
  const projects = new Map<string | null, string[]>();
  const members: [position: string | null, json: string][] = [];
  let summary: string | undefined;
  for (const row of rows) {
    const [part, , memberPosition, , json] = row;
    if (part === 'project') push(projects, memberPosition, metricsRow(row));
    else if (part === 'member') members.push([memberPosition, metricsRow(row)]);
    else if (part === 'summary') summary = metricsRow(row);
    else if (part !== 'native') push(parts, part, json);
  }
  const [counts] = parts.get('counts') ?? [];
  if (counts === undefined || summary === undefined) {
    throw new Error('profitability_report returned no counts or summary');
  }
  const { baseCurrency, memberTotal, missingRateCount } = sqlCounts.parse(JSON.parse(counts));
  return {
    baseCurrency,
    memberTotal,
    missingRateCount,
    summary,
    members: members.map(([position, member]) => {
      const own = projects.get(position) ?? [];
      return `${member.slice(0, -1)},"projectCount":${own.length},"projects":[${own.join(',')}]}`;
    }),
    unallocatedRevenue: parts.get('unallocated_revenue') ?? [],
    unreconciledReceipts: parts.get('unreconciled_receipts') ?? [],
    missingFx: parts.get('missing_fx') ?? [],
    fxRates: parts.get('fx_rate') ?? [],
  };
}

/** The record's JSON text, in its field order. */
export function renderReport(parts: ReportParts, params: ProfitabilityParams): string {
  const list = (items: string[]) => `[${items.join(',')}]`;
  return (
    `{"from":${JSON.stringify(params.from)},"to":${JSON.stringify(params.to)},"view":"work",` +
    `"baseCurrency":${JSON.stringify(parts.baseCurrency)},"page":${params.page},` +
    `"perPage":${params.perPage},"memberTotal":${parts.memberTotal},` +
    `"missingRateCount":${parts.missingRateCount},"summary":${parts.summary},` +
    `"members":${list(parts.members)},"unallocatedRevenue":${list(parts.unallocatedRevenue)},` +
    `"unreconciledReceipts":${list(parts.unreconciledReceipts)},` +
    `"missingFx":${list(parts.missingFx)},"fxRates":${list(parts.fxRates)}}`
  );
}

function push<K>(map: Map<K, string[]>, key: K, json: string): void {
  const list = map.get(key);
  if (list) list.push(json);
  else map.set(key, [json]);
}

const safeInteger = z.number().refine(Number.isSafeInteger, 'a safe integer');
const sqlCounts = z.object({
  baseCurrency: z.string(),
  memberTotal: safeInteger,
  missingRateCount: safeInteger,
});
