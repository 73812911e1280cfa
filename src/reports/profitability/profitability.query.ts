import type { DuckDBConnection } from '@duckdb/node-api';
import { SqlParams } from '../../http/list/sql-params.ts';
import { formatAmount, formatE4 } from '../../money/money.ts';
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

/** The sums every statement reads, as text (HUGEINT sums leave DuckDB exact). */
const SUMS = `
  CAST(sum(approved_e4) AS VARCHAR), CAST(sum(paid_e4) AS VARCHAR),
  CAST(sum(estimated_e4) AS VARCHAR), CAST(sum(billed_e4) AS VARCHAR),
  CAST(sum(collected_e4) AS VARCHAR), CAST(sum(approved_b4) AS VARCHAR),
  CAST(sum(paid_b4) AS VARCHAR), CAST(sum(estimated_b4) AS VARCHAR),
  CAST(sum(billed_b4) AS VARCHAR), CAST(sum(collected_b4) AS VARCHAR),
  CAST(sum(approved_missing_e4) AS VARCHAR), CAST(sum(paid_missing_e4) AS VARCHAR),
  CAST(sum(estimated_missing_e4) AS VARCHAR), CAST(sum(billed_missing_e4) AS VARCHAR),
  CAST(sum(collected_missing_e4) AS VARCHAR), bool_or(missing_pay_rate),
  CAST(sum(unbilled_seconds) AS VARCHAR)`;

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

const membersSql = (a: Args) => `
  SELECT ${jsonList('line')} FROM (
    SELECT json_array(CAST(user_id AS VARCHAR), cost_currency, revenue_currency, NULL, NULL,
      bool_or(cost_needs_fx), bool_or(revenue_needs_fx), json_array(${SUMS})) AS line
    FROM ${rangeRows(a)}
    GROUP BY user_id, cost_currency, revenue_currency
    UNION ALL
    -- The rates that converted an amount: a plain DISTINCT, which DuckDB runs in a fraction
    -- of what a grouping set of all those sums took.
    SELECT json_array(NULL, NULL, NULL, CAST(rate_id AS VARCHAR), NULL, false, false, NULL)
    FROM (SELECT DISTINCT unnest([cost_rate_id, revenue_rate_id]) AS rate_id FROM ${rangeRows(a)})
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
  const a = argsOf(params);
  const read = async <T>(text: string): Promise<T> => {
    const reader = await connection.runAndReadAll(text, a.sql.valuesIn(text));
    return JSON.parse(String(reader.getRows()[0]![0])) as T;
  };
  await connection.run('BEGIN TRANSACTION');
  try {
    const context = await read<ContextLine[]>(contextSql(a));
    const members = await read<MemberLine[]>(membersSql(a));
    const report = new ReportBuilder(params, context, members);
    const page = report.pageUsers();
    const projects = page.length === 0 ? [] : await read<ProjectLine[]>(projectsSql(a, page));
    return report.record(projects);
  } finally {
    await connection.run('ROLLBACK');
  }
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

const PRIMARY = ['approved', 'paid', 'estimated', 'billed', 'collected'] as const;
type Primary = (typeof PRIMARY)[number];
type PrimaryMetric = Profitability['missingFx'][number]['metric'];
const METRIC_OF: Record<Primary, PrimaryMetric> = {
  approved: 'approvedCost',
  paid: 'paid',
  estimated: 'estimatedCost',
  billed: 'billedNet',
  collected: 'collectedNet',
};
const COST: readonly Primary[] = ['approved', 'paid', 'estimated'];

/** One group of summed rows: one currency pair of a member or of a member's project. */
interface Sums {
  costCurrency: string | null;
  revenueCurrency: string | null;
  native: Record<Primary, bigint | null>;
  converted: Record<Primary, bigint | null>;
  missing: Record<Primary, bigint | null>;
  missingPayRate: boolean;
  unbilledSeconds: bigint;
}

function sumsOf(costCurrency: string | null, revenueCurrency: string | null, line: SumsLine): Sums {
  const big = (i: number) => (line[i] === null ? null : BigInt(line[i] as string));
  const record = (offset: number) =>
    Object.fromEntries(PRIMARY.map((m, i) => [m, big(offset + i)])) as Record<
      Primary,
      bigint | null
    >;
  return {
    costCurrency,
    revenueCurrency,
    native: record(0),
    converted: record(5),
    missing: record(10),
    missingPayRate: (line[15] as unknown) === true,
    unbilledSeconds: BigInt((line[16] as string | null) ?? '0'),
  };
}

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

/** part x 100 / whole, rounded half away from zero to two decimals (whole <> 0). */
function percent(part: bigint, whole: bigint): string {
  const n = part * 10000n;
  const negative = n < 0n !== whole < 0n;
  const a = n < 0n ? -n : n;
  const b = whole < 0n ? -whole : whole;
  const hundredths = (2n * a + b) / (2n * b);
  return formatE4((negative ? -hundredths : hundredths) * 100n, 2);
}

/** Adds the statements' rows up into the API's record (decisions 8). */
class ReportBuilder {
  private readonly baseCurrency: string;
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
    const byUser = new Map<string, Sums[]>();
    for (const [userId, cost, revenue, costRate, revenueRate, costFx, revenueFx, sums] of lines) {
      if (userId === null) {
        for (const rate of [costRate, revenueRate]) if (rate !== null) this.ratesUsed.add(rate);
        continue;
      }
      if (costFx && cost !== null) this.needsFx.add(cost);
      if (revenueFx && revenue !== null) this.needsFx.add(revenue);
      const list = byUser.get(userId) ?? [];
      list.push(sumsOf(cost, revenue, sums));
      byUser.set(userId, list);
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
    const projects = new Map<string, { id: string; name: string | null; sums: Sums[] }[]>();
    for (const [userId, projectId, projectName, cost, revenue, sums] of projectLines) {
      const own = projects.get(userId) ?? [];
      let last = own[own.length - 1];
      if (last?.id !== projectId) {
        last = { id: projectId, name: projectName, sums: [] };
        own.push(last);
      }
      last.sums.push(sumsOf(cost, revenue, sums));
      projects.set(userId, own);
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
    const converted = (m: Primary) => sums.reduce((t, s) => t + (s.converted[m] ?? 0n), 0n);
    const missing = (m: Primary) => sums.some((s) => s.missing[m] !== null);
    const approved = converted('approved');
    const paid = converted('paid');
    const estimated = converted('estimated');
    const billed = converted('billed');
    const collected = converted('collected');
    const compensation = approved + estimated;
    const margin = billed - compensation;
    const missingPayRate = sums.some((s) => s.missingPayRate);
    const fx = Object.fromEntries(PRIMARY.map((m) => [m, missing(m)])) as Record<Primary, boolean>;
    const missingMetrics = [
      fx.billed && 'billedNet',
      fx.collected && 'collectedNet',
      (fx.approved || fx.estimated || missingPayRate) && 'compensationCost',
      fx.approved && 'approvedCost',
      (fx.estimated || missingPayRate) && 'estimatedCost',
      fx.paid && 'paid',
      (fx.approved || fx.paid) && 'pending',
    ].filter((m): m is Metric => m !== false);
    const base = (e4: bigint) => money(e4, this.baseCurrency);
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
      billedNet: base(billed),
      collectedNet: base(collected),
      compensationCost: base(compensation),
      approvedCost: base(approved),
      estimatedCost: base(estimated),
      paid: base(paid),
      pending: base(approved - paid),
      margin: base(margin),
      marginPercent: billed === 0n ? null : percent(margin, billed),
      clientUnbilledSeconds: Number(sums.reduce((t, s) => t + s.unbilledSeconds, 0n)),
      missingFx: PRIMARY.some((m) => fx[m]),
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

  /** The amounts of `sums` left unconverted, per primary metric and currency. */
  private missingFx(sums: Sums[]): Profitability['missingFx'] {
    const totals = new Map<string, { metric: PrimaryMetric; currency: string; e4: bigint }>();
    for (const s of sums)
      for (const m of PRIMARY) {
        const amount = s.missing[m];
        const currency = COST.includes(m) ? s.costCurrency : s.revenueCurrency;
        if (amount === null || currency === null) continue;
        const key = `${METRIC_OF[m]}/${currency}`;
        const total = totals.get(key);
        if (total) total.e4 += amount;
        else totals.set(key, { metric: METRIC_OF[m], currency, e4: amount });
      }
    return [...totals.values()].sort(byMetricThenCurrency).map((t) => ({
      fromCurrency: t.currency,
      toCurrency: this.baseCurrency,
      amount: money(t.e4, t.currency),
      metric: t.metric,
    }));
  }
}

const metricPosition = (metric: string) =>
  (PROFITABILITY_METRICS as readonly string[]).indexOf(metric);
const byMetricThenCurrency = (
  x: { metric: string; currency: string },
  y: { metric: string; currency: string },
) =>
  metricPosition(x.metric) - metricPosition(y.metric) ||
  (x.currency < y.currency ? -1 : x.currency > y.currency ? 1 : 0);

/** Per metric and currency the unconverted sums (compensationCost and pending derived per currency), zero sums left out. */
function nativeAmounts(sums: Sums[]): ProfitabilityRow['nativeAmounts'] {
  const cost = new Map<string, Record<'approved' | 'paid' | 'estimated', bigint>>();
  const revenue = new Map<string, Record<'billed' | 'collected', bigint>>();
  for (const s of sums) {
    if (s.costCurrency !== null) {
      const t = cost.get(s.costCurrency) ?? { approved: 0n, paid: 0n, estimated: 0n };
      t.approved += s.native.approved ?? 0n;
      t.paid += s.native.paid ?? 0n;
      t.estimated += s.native.estimated ?? 0n;
      cost.set(s.costCurrency, t);
    }
    if (s.revenueCurrency !== null) {
      const t = revenue.get(s.revenueCurrency) ?? { billed: 0n, collected: 0n };
      t.billed += s.native.billed ?? 0n;
      t.collected += s.native.collected ?? 0n;
      revenue.set(s.revenueCurrency, t);
    }
  }
  const amounts: { metric: Metric; currency: string; e4: bigint }[] = [];
  for (const [currency, t] of revenue) {
    amounts.push({ metric: 'billedNet', currency, e4: t.billed });
    amounts.push({ metric: 'collectedNet', currency, e4: t.collected });
  }
  for (const [currency, t] of cost) {
    amounts.push({ metric: 'compensationCost', currency, e4: t.approved + t.estimated });
    amounts.push({ metric: 'approvedCost', currency, e4: t.approved });
    amounts.push({ metric: 'estimatedCost', currency, e4: t.estimated });
    amounts.push({ metric: 'paid', currency, e4: t.paid });
    amounts.push({ metric: 'pending', currency, e4: t.approved - t.paid });
  }
  return amounts
    .filter((a) => a.e4 !== 0n)
    .sort(byMetricThenCurrency)
    .map((a) => ({ currency: a.currency, metric: a.metric, amount: money(a.e4, a.currency) }));
}
