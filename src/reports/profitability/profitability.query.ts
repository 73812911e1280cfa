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
// them up into the API's rows (decisions 8): sums, derived metrics, margin percent, native
// amounts, what is missing.
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

function argsOf(params: ProfitabilityParams): Args {
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
const memberRows = (a: Args, params: ProfitabilityParams) =>
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

/** The JSON text of the report's record (decisions 8), computed in one read snapshot. */
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
  const page = report.pageUsers();
  const projects = page.length === 0 ? [] : await read<ProjectLine[]>(projectsSql(a, page));
  return report.record(projects);
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

/** Adds the statements' rows up into the API's record (decisions 8). */
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

  record(projectLines: ProjectLine[]): Profitability {
    // The lines come ordered by user, then project: a user's projects are consecutive.
    const projects = new Map<string, { id: string; name: string | null; sums: Sums[] }[]>();
    for (const [userId, projectId, projectName, cost, revenue, sums] of projectLines) {
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
    const [approved, paid, estimated, billed, collected] = converted;
    const [approvedFx, paidFx, estimatedFx, billedFx, collectedFx] = fx;
    const compensation = approved + estimated;
    const margin = billed - compensation;
    const missingMetrics = [
      billedFx && 'billedNet',
      collectedFx && 'collectedNet',
      (approvedFx || estimatedFx || missingPayRate) && 'compensationCost',
      approvedFx && 'approvedCost',
      (estimatedFx || missingPayRate) && 'estimatedCost',
      paidFx && 'paid',
      (approvedFx || paidFx) && 'pending',
    ].filter((m): m is Metric => m !== false);
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
      billedNet: this.base(billed),
      collectedNet: this.base(collected),
      compensationCost: this.base(compensation),
      approvedCost: this.base(approved),
      estimatedCost: this.base(estimated),
      paid: this.base(paid),
      pending: this.base(approved - paid),
      margin: this.base(margin),
      marginPercent: billed === 0n ? null : percentE4(margin, billed),
      clientUnbilledSeconds: Number(unbilledSeconds),
      missingFx: fx.includes(true),
      missingPayRate,
      missingMetrics,
      nativeAmounts: nativeAmounts(sums),
      links: {
        app,
        payee: person?.payeeId ? `/app/team/payees/${person.payeeId}` : '',
        project: project ? `/app/projects/${project.id}` : '',
        task: '',
      },
    };
  }

  /** An amount in the base currency, printed at its scale. */
  private base(e4: bigint): string {
    return formatE4(e4, this.baseScale);
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
