import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlParams } from '../../readmodel/sql-params.ts';
import { formatAmount, formatE4, percentE4 } from '../../money/money.ts';
import { currencyScale } from '../../money/currencies.ts';
import {
  PROFITABILITY_METRICS,
  type Profitability,
  type ProfitabilityRow,
} from './profitability.schema.ts';

type Metric = (typeof PROFITABILITY_METRICS)[number];
/** A native sum of a list: its currency, and the amount printed at the currency's scale. */
type NativeSum = Profitability['unallocatedRevenue'][number];
import { wholeMonthsOf } from './profitability.range.ts';
import {
  CONVERTED,
  MISSING,
  NATIVE,
  PRIMARY as PRIMARY_AMOUNTS,
  REPORT_SUMS,
  SUMMED,
  type PrimaryName,
} from './metrics.ts';

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
  /** `none`: the members without their projects (docs/api.md, "Profitability"). */
  projects?: 'all' | 'none';
}

// How a report is computed (docs/summaries.md, "How a report reads them"): three small
// statements in one read transaction, so every figure comes from the same sync commit, each
// planned by DuckDB in a few milliseconds:
//   context   the base currency, the order of the workspace's people (payee name, else user
//             name, then id), the FX rates into the base currency, unallocated revenue and
//             unreconciled receipts (native sums, as decimal text)
//   members   every member's sums per cost and revenue currency over the range
//             (profitability_range_rows), and the FX rates that converted an amount
//   projects  the page's members' sums per project, in project order
// Their rows come as one JSON text each, money as the decimal text of integer counts of 10^-4
// (e4), read into BigInt: no figure passes through a JavaScript number. This module then adds
// them up into the API's rows (docs/contract.md, "Profitability"): sums, derived metrics, margin
// percent, native amounts, what is missing.
//
// Values are written into the statements as literals of their types (SqlParams checks each
// form): with parameters DuckDB binds a statement twice. A filter not asked for is a NULL
// constant, so DuckDB plans it away.

interface Args {
  ws: string;
  from: string;
  to: string;
  wholeFrom: string;
  wholeTo: string;
  userId: string;
  projectId: string;
  clientId: string;
  sql: SqlParams;
}

/** The statements' values; `wholeMonths: false` reads every day from the day tables. */
function argsOf(
  params: Pick<
    ProfitabilityParams,
    'workspaceId' | 'from' | 'to' | 'userId' | 'projectId' | 'clientId'
  > & {
    wholeMonths?: boolean;
  },
): Args {
  const sql = new SqlParams();
  const whole = params.wholeMonths === false ? undefined : wholeMonthsOf(params.from, params.to);
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
    userId: uuid(params.userId),
    projectId: uuid(params.projectId),
    clientId: uuid(params.clientId),
    sql,
  };
}

const rangeRows = (a: Args) =>
  `profitability_range_rows(${a.ws}, ${a.from}, ${a.to}, ${a.wholeFrom}, ${a.wholeTo}, ${a.userId}, ${a.projectId}, ${a.clientId})`;

/**
 * The rows of the member lines: without a project or client filter, the member rollups
 * (profitability_member_rows: a member's few rows a day or month); with one, the rows per
 * project.
 */
const memberRows = (a: Args, params: Pick<ProfitabilityParams, 'projectId' | 'clientId'>) =>
  params.projectId === undefined && params.clientId === undefined
    ? `profitability_member_rows(${a.ws}, ${a.from}, ${a.to}, ${a.wholeFrom}, ${a.wholeTo}, ${a.userId})`
    : rangeRows(a);

/** The sums every statement reads (metrics.ts). */
const SUMS = REPORT_SUMS;

const jsonList = (row: string, order = '') =>
  `'[' || coalesce(string_agg(${row}, ',' ${order}), '') || ']'`;

const contextSql = (a: Args) => `
  SELECT ${jsonList('line', 'ORDER BY part, position')} FROM (
    SELECT 1 AS part, 0 AS position, json_array('base', base_currency) AS line
    FROM workspaces WHERE id = ${a.ws}
    UNION ALL
    SELECT 2, row_number() OVER (ORDER BY name IS NULL, name, user_id),
      json_array('person', user_id, payee_id, name)
    FROM (
      SELECT coalesce(u.id, p.user_id) AS user_id, p.id AS payee_id,
        coalesce(p.name, u.name) AS name
      FROM (SELECT id, name FROM users WHERE workspace_id = ${a.ws}) u
      FULL JOIN (
        SELECT id, user_id, name FROM payees WHERE workspace_id = ${a.ws} AND deleted_at IS NULL
      ) p ON p.user_id = u.id
    )
    UNION ALL
    SELECT 3, row_number() OVER (ORDER BY r.from_currency, r.effective_from, r.id),
      json_array('fx', r.id, r.from_currency, r.to_currency, r.effective_from,
        strftime(epoch_ms(epoch_ms(r.created_at)), '%Y-%m-%dT%H:%M:%S.%gZ'),
        rtrim(rtrim(CAST(r.rate AS VARCHAR), '0'), '.'))
    FROM fx_rates_live r JOIN workspaces w ON w.id = r.workspace_id
    WHERE r.workspace_id = ${a.ws} AND r.to_currency = w.base_currency
    UNION ALL
    SELECT 4, row_number() OVER (ORDER BY currency, amount),
      json_array('unallocated', currency, CAST(amount AS VARCHAR))
    FROM profitability_unallocated_revenue(${a.ws}, ${a.from}, ${a.to}, ${a.userId}, ${a.projectId}, ${a.clientId})
    UNION ALL
    SELECT 5, row_number() OVER (ORDER BY currency, amount),
      json_array('receipts', currency, CAST(amount AS VARCHAR))
    FROM profitability_unreconciled_receipts(${a.ws}, ${a.from}, ${a.to}, ${a.userId}, ${a.projectId}, ${a.clientId})
  )`;

const membersSql = (a: Args, params: ProfitabilityParams) => `
  SELECT ${jsonList('line')} FROM (
    SELECT json_array(CAST(user_id AS VARCHAR), cost_currency, revenue_currency, NULL, NULL,
      bool_or(cost_needs_fx), bool_or(revenue_needs_fx), json_array(${SUMS})) AS line
    FROM ${memberRows(a, params)}
    GROUP BY user_id, cost_currency, revenue_currency
    UNION ALL
    -- The rates that converted an amount: a plain DISTINCT, which DuckDB runs in a fraction
    -- of what a grouping set of all those sums took.
    SELECT json_array(NULL, NULL, NULL, CAST(rate_id AS VARCHAR), NULL, false, false, NULL)
    FROM (
      SELECT DISTINCT unnest([cost_rate_id, revenue_rate_id]) AS rate_id
      FROM ${memberRows(a, params)}
    )
    WHERE rate_id IS NOT NULL
  )`;

const projectsSql = (a: Args, users: string[]) => `
  SELECT ${jsonList(
    `json_array(CAST(r.user_id AS VARCHAR), CAST(r.project_id AS VARCHAR), p.name,
      r.cost_currency, r.revenue_currency, r.sums)`,
    'ORDER BY r.user_id, p.name IS NULL, p.name, r.project_id',
  )}
  FROM (
    SELECT user_id, project_id, cost_currency, revenue_currency, json_array(${SUMS}) AS sums
    FROM ${rangeRows(a)}
    WHERE ${a.sql.in('user_id', users, 'UUID')}
    GROUP BY ALL
  ) r
  LEFT JOIN projects p ON p.workspace_id = ${a.ws} AND p.id = r.project_id`;

/**
 * The JSON text of the report's record (docs/contract.md, "Profitability"), computed in one read
 * snapshot.
 */
export async function loadProfitability(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
): Promise<string> {
  return JSON.stringify(await computeReport(connection, params));
}

/** The report's record, read in one transaction of `connection` (not inside one already). */
export async function computeReport(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
): Promise<Profitability> {
  await connection.run('BEGIN TRANSACTION');
  try {
    return await readReport(connection, params);
  } finally {
    await connection.run('ROLLBACK');
  }
}

/**
 * The report's record, read in the transaction `connection` has open: the one definition of
 * the report's figures, which the exports write out too (src/exports/export-reports.ts).
 */
export async function readReport(
  connection: DuckDBConnection,
  params: ProfitabilityParams,
): Promise<Profitability> {
  const a = argsOf(params);
  const read = async <T>(text: string): Promise<T> => {
    const reader = await connection.runAndReadAll(text, a.sql.valuesIn(text));
    return JSON.parse(String(reader.getRows()[0]![0])) as T;
  };
  const context = await read<ContextLine[]>(contextSql(a));
  const members = await read<MemberLine[]>(membersSql(a, params));
  const report = new ReportBuilder(params, context, members);
  if (params.projects === 'none') return report.record(null);
  const page = report.pageUsers();
  const projects = page.length === 0 ? [] : await read<ProjectLine[]>(projectsSql(a, page));
  return report.record(projects);
}

export interface SeriesParams {
  workspaceId: string;
  /** Inclusive range of entry dates (YYYY-MM-DD), from <= to. */
  from: string;
  to: string;
  interval: 'month' | 'week';
  userId?: string;
  projectId?: string;
  clientId?: string;
}

/** A point of a series: its days (within the range) and the figures of its entries. */
export type SeriesPoint = { from: string; to: string } & Figures;

export interface Series {
  from: string;
  to: string;
  interval: 'month' | 'week';
  baseCurrency: string;
  points: SeriesPoint[];
}

/**
 * The report's figures per month or week (ISO weeks, from Monday) of a range, in one statement:
 * the rows the report sums (by member without a project or client filter), bucketed by the day
 * they carry. A week's days are read from the day rollups and the facts, so a weekly series
 * reads no month rollup; a monthly one reads the range's whole months there, as the report
 * does. Every point is made by figuresOf, as every row of the report: a point of a month equals
 * the report of that month's days in the range. Points without entries are zero, so a line
 * has every point of its range.
 */
export async function readSeries(
  connection: DuckDBConnection,
  params: SeriesParams,
): Promise<Series> {
  const report = { ...params, page: 1, perPage: 1 };
  const a = argsOf(params.interval === 'week' ? { ...report, wholeMonths: false } : report);
  const bucket = `CAST(date_trunc('${params.interval}', day) AS DATE)`;
  const text = `
    SELECT json_array(
      (SELECT base_currency FROM workspaces WHERE id = ${a.ws}),
      CAST(${jsonList('line')} AS JSON)
    )
    FROM (
      SELECT json_array(CAST(${bucket} AS VARCHAR), cost_currency, revenue_currency,
        json_array(${SUMS})) AS line
      FROM ${memberRows(a, report)}
      GROUP BY ${bucket}, cost_currency, revenue_currency
    )`;
  const reader = await connection.runAndReadAll(text, a.sql.valuesIn(text));
  const [base, lines] = JSON.parse(String(reader.getRows()[0]![0])) as [
    string | null,
    [string, string | null, string | null, SumsLine][],
  ];
  if (base === null) throw new Error(`workspace ${params.workspaceId} has no base currency`);
  const byBucket = new Map<string, Sums[]>();
  for (const [day, cost, revenue, sums] of lines) {
    const list = byBucket.get(day) ?? [];
    list.push(sumsOf(cost, revenue, sums));
    byBucket.set(day, list);
  }
  const baseScale = scaleOf(base);
  return {
    from: params.from,
    to: params.to,
    interval: params.interval,
    baseCurrency: base,
    points: bucketsOf(params.from, params.to, params.interval).map((b) => ({
      from: b.from,
      to: b.to,
      ...figuresOf(byBucket.get(b.start) ?? [], baseScale),
    })),
  };
}

/** The most points a series answers (about ten years of months, or of weeks two years). */
export const SERIES_POINTS = 120;

/**
 * The months or ISO weeks that `from`..`to` touches: each bucket's first day (`start`) and its
 * days within the range.
 */
export function bucketsOf(
  from: string,
  to: string,
  interval: 'month' | 'week',
): { start: string; from: string; to: string }[] {
  const day = (text: string) => new Date(`${text}T00:00:00Z`);
  const iso = (date: Date) => date.toISOString().slice(0, 10);
  const last = day(to);
  let start = day(from);
  if (interval === 'month') start.setUTCDate(1);
  else start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
  const buckets: { start: string; from: string; to: string }[] = [];
  while (start <= last) {
    const next = new Date(start);
    if (interval === 'month') next.setUTCMonth(next.getUTCMonth() + 1);
    else next.setUTCDate(next.getUTCDate() + 7);
    const end = new Date(next);
    end.setUTCDate(end.getUTCDate() - 1);
    const b = iso(start);
    buckets.push({ start: b, from: b < from ? from : b, to: iso(end) > to ? to : iso(end) });
    start = next;
  }
  return buckets;
}

type ContextLine =
  | ['base', string]
  | ['person', string, string | null, string | null]
  | ['fx', string, string, string, string, string, string]
  | ['unallocated' | 'receipts', string, string];
/** [sums] as SUMS lists them: fifteen e4 texts (or null), missing pay rate, unbilled seconds. */
type SumsLine = [...(string | null)[]];
type MemberLine = [
  userId: string | null,
  costCurrency: string | null,
  revenueCurrency: string | null,
  costRateId: string | null,
  revenueRateId: string | null,
  costNeedsFx: boolean,
  revenueNeedsFx: boolean,
  sums: SumsLine,
];
type ProjectLine = [
  userId: string,
  projectId: string,
  projectName: string | null,
  costCurrency: string | null,
  revenueCurrency: string | null,
  sums: SumsLine,
];

type PrimaryMetric = Profitability['missingFx'][number]['metric'];
/** A figure per primary amount, in metrics.ts's order (that of SUMS). */
type PerPrimary<T> = [approved: T, paid: T, estimated: T, billed: T, collected: T];
const PRIMARY_INDEXES = [0, 1, 2, 3, 4] as const satisfies {
  length: (typeof PRIMARY_AMOUNTS)['length'];
};
const PRIMARY = PRIMARY_INDEXES.map((m) => PRIMARY_AMOUNTS[m].metric) as PerPrimary<PrimaryMetric>;
const at = (name: PrimaryName) => PRIMARY_AMOUNTS.findIndex((p) => p.name === name) as PrimaryIndex;
const [APPROVED, PAID, ESTIMATED, BILLED, COLLECTED] = [
  at('approved'),
  at('paid'),
  at('estimated'),
  at('billed'),
  at('collected'),
];
type PrimaryIndex = (typeof PRIMARY_INDEXES)[number];

/**
 * One group of summed rows: one currency pair of a member or of a member's project, its sums
 * read into BigInt once. Costs (approved, paid, estimated) are in the cost currency, billed and
 * collected in the revenue currency.
 */
interface Sums {
  costCurrency: string | null;
  revenueCurrency: string | null;
  /** The native amounts (0 where there were none). */
  native: PerPrimary<bigint>;
  /** The amounts converted into the base currency (0 where there were none). */
  converted: PerPrimary<bigint>;
  /** The native amounts that had no FX rate; null when every amount had one. */
  missing: PerPrimary<bigint | null>;
  missingPayRate: boolean;
  unbilledSeconds: bigint;
}

const e4OrZero = (text: string | null | undefined) => (text === null ? 0n : BigInt(text!));
const e4OrNull = (text: string | null | undefined) => (text === null ? null : BigInt(text!));
/** The five sums of `line` from `offset` on, read by `read`. */
function fiveFrom<T>(line: SumsLine, offset: number, read: (text: string | null | undefined) => T) {
  return [
    read(line[offset]),
    read(line[offset + 1]),
    read(line[offset + 2]),
    read(line[offset + 3]),
    read(line[offset + 4]),
  ] satisfies PerPrimary<T>;
}

/** Where a line of SUMS holds each list of metrics.ts. */
const AT = {
  native: SUMMED.indexOf(NATIVE[0]!),
  converted: SUMMED.indexOf(CONVERTED[0]!),
  missing: SUMMED.indexOf(MISSING[0]!),
  missingPayRate: SUMMED.indexOf('missing_pay_rate'),
  unbilledSeconds: SUMMED.indexOf('unbilled_seconds'),
};

function sumsOf(costCurrency: string | null, revenueCurrency: string | null, line: SumsLine): Sums {
  return {
    costCurrency,
    revenueCurrency,
    native: fiveFrom(line, AT.native, e4OrZero),
    converted: fiveFrom(line, AT.converted, e4OrZero),
    missing: fiveFrom(line, AT.missing, e4OrNull),
    missingPayRate: (line[AT.missingPayRate] as unknown) === true,
    unbilledSeconds: BigInt((line[AT.unbilledSeconds] as string | null) ?? '0'),
  };
}

/** The currency a primary metric's amounts of `s` are in. */
const currencyOf = (s: Sums, m: PrimaryIndex) =>
  PRIMARY_AMOUNTS[m].side === 'revenue' ? s.revenueCurrency : s.costCurrency;

interface Person {
  userId: string;
  payeeId: string | null;
  name: string | null;
  position: number;
}

interface FxRate {
  id: string;
  fromCurrency: string;
  toCurrency: string;
  effectiveFrom: string;
  createdAt: string;
  rate: string;
}

/** The sums of 10^-4 units printed at a currency's scale (rounded half away from zero). */
const money = (e4: bigint, currency: string) => formatE4(e4, scaleOf(currency));
const scaleOf = (currency: string) => currencyScale(currency) ?? 2;

/** Adds the statements' rows up into the API's record (docs/contract.md, "Profitability"). */
class ReportBuilder {
  private readonly baseCurrency: string;
  private readonly baseScale: number;
  private readonly people = new Map<string, Person>();
  private readonly fxRates: FxRate[] = [];
  private readonly lists: Record<'unallocated' | 'receipts', NativeSum[]> = {
    unallocated: [],
    receipts: [],
  };
  /** Each member's sums per currency pair, the members in report order. */
  private readonly members: { person: Person; sums: Sums[] }[];
  private readonly ratesUsed = new Set<string>();
  private readonly needsFx = new Set<string>();

  constructor(
    private readonly params: ProfitabilityParams,
    context: ContextLine[],
    lines: MemberLine[],
  ) {
    let base: string | undefined;
    for (const line of context) {
      if (line[0] === 'base') base = line[1];
      else if (line[0] === 'person') {
        const [, userId, payeeId, name] = line;
        this.people.set(userId, { userId, payeeId, name, position: this.people.size });
      } else if (line[0] === 'fx') {
        const [, id, fromCurrency, toCurrency, effectiveFrom, createdAt, rate] = line;
        this.fxRates.push({ id, fromCurrency, toCurrency, effectiveFrom, createdAt, rate });
      } else
        this.lists[line[0]].push({ currency: line[1], amount: formatAmount(line[2], line[1]) });
    }
    if (base === undefined) throw new Error(`workspace ${params.workspaceId} has no base currency`);
    this.baseCurrency = base;
    this.baseScale = scaleOf(base);
    const byUser = new Map<string, Sums[]>();
    for (const [userId, cost, revenue, costRate, revenueRate, costFx, revenueFx, sums] of lines) {
      if (userId === null) {
        if (costRate !== null) this.ratesUsed.add(costRate);
        if (revenueRate !== null) this.ratesUsed.add(revenueRate);
        continue;
      }
      if (costFx && cost !== null) this.needsFx.add(cost);
      if (revenueFx && revenue !== null) this.needsFx.add(revenue);
      const list = byUser.get(userId);
      if (list) list.push(sumsOf(cost, revenue, sums));
      else byUser.set(userId, [sumsOf(cost, revenue, sums)]);
    }
    // A user with no row in users nor a live payee sorts last, by id (as DuckDB orders UUIDs).
    this.members = [...byUser]
      .map(([userId, sums]) => ({
        person: this.people.get(userId) ?? {
          userId,
          payeeId: null,
          name: null,
          position: Infinity,
        },
        sums,
      }))
      .sort(
        (x, y) =>
          x.person.position - y.person.position ||
          (x.person.userId < y.person.userId ? -1 : x.person.userId > y.person.userId ? 1 : 0),
      );
  }

  /** The user ids of the requested page's members. */
  pageUsers(): string[] {
    const { page, perPage } = this.params;
    return this.members.slice((page - 1) * perPage, page * perPage).map((m) => m.person.userId);
  }

  /** The record; `projectLines` null: the members without their projects. */
  record(projectLines: ProjectLine[] | null): Profitability {
    // The lines come ordered by user, then project: a user's projects are consecutive.
    const projects = new Map<string, { id: string; name: string | null; sums: Sums[] }[]>();
    for (const [userId, projectId, projectName, cost, revenue, sums] of projectLines ?? []) {
      let own = projects.get(userId);
      if (!own) projects.set(userId, (own = []));
      let last = own[own.length - 1];
      if (last?.id !== projectId) {
        last = { id: projectId, name: projectName, sums: [] };
        own.push(last);
      }
      last.sums.push(sumsOf(cost, revenue, sums));
    }
    const all = this.members.flatMap((m) => m.sums);
    const { page, perPage } = this.params;
    const first = (page - 1) * perPage;
    return {
      from: this.params.from,
      to: this.params.to,
      view: 'work',
      baseCurrency: this.baseCurrency,
      page,
      perPage,
      memberTotal: this.members.length,
      missingRateCount: this.members.filter((m) => m.sums.some((s) => s.missingPayRate)).length,
      summary: this.row(all, null, null),
      // Only the page's members are made rows; the others count in the summary and totals.
      members: this.members.slice(first, first + perPage).map(({ person, sums }) => {
        if (projectLines === null) return this.row(sums, person, null);
        const own = (projects.get(person.userId) ?? []).map((p) =>
          this.row(p.sums, person, { id: p.id, name: p.name }),
        );
        return { ...this.row(sums, person, null), projectCount: own.length, projects: own };
      }),
      unallocatedRevenue: this.lists.unallocated,
      unreconciledReceipts: this.lists.receipts,
      missingFx: this.missingFx(all),
      fxRates: this.fxRates
        .filter((r) => this.needsFx.has(r.fromCurrency))
        .map((r) => ({
          id: r.id,
          fromCurrency: r.fromCurrency,
          toCurrency: r.toCurrency,
          effectiveFrom: r.effectiveFrom,
          createdAt: r.createdAt,
          used: this.ratesUsed.has(r.id),
          rate: r.rate,
        })),
    };
  }

  /** A metrics row: the sums of `sums`, for a member, one of its projects, or the summary. */
  private row(
    sums: Sums[],
    person: Person | null,
    project: { id: string; name: string | null } | null,
  ): ProfitabilityRow {
    const figures = figuresOf(sums, this.baseScale);
    const { from, to } = this.params;
    const app =
      `/app/team/profitability?from=${from}&to=${to}` +
      (person ? `&userId=${person.userId}` : '') +
      (project ? `&projectId=${project.id}` : '');
    return {
      userId: person?.userId ?? null,
      payeeId: person?.payeeId ?? null,
      name: person?.name ?? null,
      projectId: project?.id ?? null,
      projectName: project?.name ?? null,
      ...figures,
      nativeAmounts: nativeAmounts(sums),
      links: {
        app,
        payee: person?.payeeId ? `/app/team/payees/${person.payeeId}` : '',
        project: project ? `/app/projects/${project.id}` : '',
        task: '',
      },
    };
  }

  /** The amounts of `sums` left unconverted, per primary metric and currency. */
  private missingFx(sums: Sums[]): Profitability['missingFx'] {
    const totals = new Map<string, { metric: PrimaryMetric; currency: string; e4: bigint }>();
    for (const s of sums)
      for (const m of PRIMARY_INDEXES) {
        const amount = s.missing[m];
        const currency = currencyOf(s, m);
        if (amount === null || currency === null) continue;
        const key = `${PRIMARY[m]}/${currency}`;
        const total = totals.get(key);
        if (total) total.e4 += amount;
        else totals.set(key, { metric: PRIMARY[m], currency, e4: amount });
      }
    return [...totals.values()].sort(byMetricThenCurrency).map((t) => ({
      fromCurrency: t.currency,
      toCurrency: this.baseCurrency,
      amount: money(t.e4, t.currency),
      metric: t.metric,
    }));
  }
}

/** A metrics row's figures, without who or what it is of (a row, a point of a series). */
export type Figures = Omit<
  ProfitabilityRow,
  'userId' | 'payeeId' | 'name' | 'projectId' | 'projectName' | 'nativeAmounts' | 'links'
>;

/**
 * The figures of a metrics row from the sums of its lines (docs/contract.md, "Derived metrics"):
 * the converted sums, the metrics derived from them, and which are incomplete. Every row of the
 * report, and every point of a series, is made here.
 */
function figuresOf(sums: readonly Sums[], baseScale: number): Figures {
  // One pass: the converted totals, which metrics lack an FX rate, the rest.
  const converted: PerPrimary<bigint> = [0n, 0n, 0n, 0n, 0n];
  const fx: PerPrimary<boolean> = [false, false, false, false, false];
  let missingPayRate = false;
  let unbilledSeconds = 0n;
  for (const s of sums) {
    for (const m of PRIMARY_INDEXES) {
      converted[m] += s.converted[m];
      if (s.missing[m] !== null) fx[m] = true;
    }
    if (s.missingPayRate) missingPayRate = true;
    unbilledSeconds += s.unbilledSeconds;
  }
  const approved = converted[APPROVED];
  const paid = converted[PAID];
  const estimated = converted[ESTIMATED];
  const billed = converted[BILLED];
  const collected = converted[COLLECTED];
  const compensation = approved + estimated;
  const margin = billed - compensation;
  const missingMetrics = [
    fx[BILLED] && 'billedNet',
    fx[COLLECTED] && 'collectedNet',
    (fx[APPROVED] || fx[ESTIMATED] || missingPayRate) && 'compensationCost',
    fx[APPROVED] && 'approvedCost',
    (fx[ESTIMATED] || missingPayRate) && 'estimatedCost',
    fx[PAID] && 'paid',
    (fx[APPROVED] || fx[PAID]) && 'pending',
  ].filter((m): m is Metric => m !== false);
  const base = (e4: bigint) => formatE4(e4, baseScale);
  return {
    billedNet: base(billed),
    collectedNet: base(collected),
    compensationCost: base(compensation),
    approvedCost: base(approved),
    estimatedCost: base(estimated),
    paid: base(paid),
    pending: base(approved - paid),
    margin: base(margin),
    marginPercent: billed === 0n ? null : percentE4(margin, billed),
    clientUnbilledSeconds: Number(unbilledSeconds),
    missingFx: fx.includes(true),
    missingPayRate,
    missingMetrics,
  };
}

const METRIC_POSITION = new Map<string, number>(PROFITABILITY_METRICS.map((m, i) => [m, i]));
const byMetricThenCurrency = (
  x: { metric: string; currency: string },
  y: { metric: string; currency: string },
) =>
  METRIC_POSITION.get(x.metric)! - METRIC_POSITION.get(y.metric)! ||
  (x.currency < y.currency ? -1 : x.currency > y.currency ? 1 : 0);

/**
 * How each metric's native amount comes from one currency's five native sums, in
 * PROFITABILITY_METRICS's order: the revenue metrics from the sums of a revenue currency, the
 * cost metrics from those of a cost currency.
 */
const NATIVE_METRICS: {
  metric: Metric;
  side: 'revenue' | 'cost';
  of: (t: PerPrimary<bigint>) => bigint;
}[] = [
  { metric: 'billedNet', side: 'revenue', of: (t) => t[BILLED] },
  { metric: 'collectedNet', side: 'revenue', of: (t) => t[COLLECTED] },
  { metric: 'compensationCost', side: 'cost', of: (t) => t[APPROVED] + t[ESTIMATED] },
  { metric: 'approvedCost', side: 'cost', of: (t) => t[APPROVED] },
  { metric: 'estimatedCost', side: 'cost', of: (t) => t[ESTIMATED] },
  { metric: 'paid', side: 'cost', of: (t) => t[PAID] },
  { metric: 'pending', side: 'cost', of: (t) => t[APPROVED] - t[PAID] },
];

/**
 * Per metric and currency the unconverted sums (compensationCost and pending derived per
 * currency), zero sums left out; ordered by metric, then currency.
 */
function nativeAmounts(sums: Sums[]): ProfitabilityRow['nativeAmounts'] {
  // All five sums per currency of each side; a metric reads only those of its side.
  const totals = {
    revenue: new Map<string, PerPrimary<bigint>>(),
    cost: new Map<string, PerPrimary<bigint>>(),
  };
  for (const s of sums) {
    if (s.revenueCurrency !== null) addInto(totals.revenue, s.revenueCurrency, s.native);
    if (s.costCurrency !== null) addInto(totals.cost, s.costCurrency, s.native);
  }
  const byCurrency = {
    revenue: [...totals.revenue].sort(byKey),
    cost: [...totals.cost].sort(byKey),
  };
  const amounts: ProfitabilityRow['nativeAmounts'] = [];
  for (const { metric, side, of } of NATIVE_METRICS)
    for (const [currency, sideTotals] of byCurrency[side]) {
      const e4 = of(sideTotals);
      if (e4 !== 0n) amounts.push({ currency, metric, amount: money(e4, currency) });
    }
  return amounts;
}

/** Adds five sums into the totals kept for `key`. */
function addInto(totals: Map<string, PerPrimary<bigint>>, key: string, add: PerPrimary<bigint>) {
  const t = totals.get(key);
  if (t === undefined) totals.set(key, [...add]);
  else for (const m of PRIMARY_INDEXES) t[m] += add[m];
}

const byKey = ([x]: [string, unknown], [y]: [string, unknown]) => (x < y ? -1 : x > y ? 1 : 0);
