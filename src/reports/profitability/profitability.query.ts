import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { SqlParams } from '../../http/list/sql-params.ts';
import { wholeMonthsOf } from './profitability.range.ts';

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
// dates and numbers so once their form is checked; as parameters, DuckDB would bind the
// statement twice). A filter not asked for is a NULL constant, so that DuckDB plans it away.
// The range's whole months (NULL when there is none) are read from the month rollup, its other
// days from the facts.
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

/** The JSON text of a record, to send as it is. */
export interface JsonText {
  readonly json: string;
}

/**
 * The profitability report of one workspace (decisions 8) as the JSON text of the API's record,
 * computed by one statement, so every figure comes from the same sync commit.
 */
export async function loadProfitability(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
): Promise<string> {
  return renderReport(await computeReport(connection, params), params);
}

/** The report's parts, read from the priced facts and their month rollup. */
export async function computeReport(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
): Promise<ReportParts> {
  const args = reportArgs(params);
  const text = reportSql(args, params.page, params.perPage);
  const reader = await connection.runAndReadAll(text, args.sql.valuesIn(text));
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
