/**
 * The summed metrics of profitability, declared once (docs/summaries.md, "Declaring a metric").
 * A priced fact carries five primary amounts, each in the currency of its side; every table
 * that sums the facts (the three rollups), their refresh (in SQL and in process), the 64-bit
 * parts, the report's sums and the exports read the lists below, and the SQL that names them
 * is made from them here (rollupTablesSql, rollupViews).
 *
 * Per primary amount a rollup sums three columns: `<name>_e4`, the native amounts; `<name>_b4`,
 * the amounts converted into the base currency; `<name>_missing_e4`, the native amounts that
 * had no FX rate (NULL: every amount had one). Besides them: `unbilled_seconds` summed and
 * `missing_pay_rate`, whether any fact lacks a pay rate. All in integer counts of 10^-4 units
 * (e4): money never leaves DuckDB or BigInt.
 */

/** The five primary amounts, in the order every list below keeps. */
export const PRIMARY = [
  { name: 'approved', metric: 'approvedCost', side: 'cost' },
  { name: 'paid', metric: 'paid', side: 'cost' },
  { name: 'estimated', metric: 'estimatedCost', side: 'cost' },
  { name: 'billed', metric: 'billedNet', side: 'revenue' },
  { name: 'collected', metric: 'collectedNet', side: 'revenue' },
] as const;

export type PrimaryName = (typeof PRIMARY)[number]['name'];
export type PrimaryMetric = (typeof PRIMARY)[number]['metric'];

/** The native amount columns of a fact and a rollup row. */
export const NATIVE = PRIMARY.map((p) => `${p.name}_e4` as const);
/** The converted amount columns (base currency). */
export const CONVERTED = PRIMARY.map((p) => `${p.name}_b4` as const);
/** The native sums of the amounts without a converted figure (rollups only). */
export const MISSING = PRIMARY.map((p) => `${p.name}_missing_e4` as const);

/** A fact's ten amounts: native, then converted. */
export const FACT_AMOUNTS = [...NATIVE, ...CONVERTED] as const;
export type FactAmount = (typeof FACT_AMOUNTS)[number];

/** The fifteen money sums of a rollup row: native, converted, missing. */
const AMOUNT_SUMS = [...NATIVE, ...CONVERTED, ...MISSING] as const;
/** The sixteen BIGINT sums of a rollup row, in the table's order (and e4_sum_parts' arguments). */
export const ROLLUP_SUMS = [...AMOUNT_SUMS, 'unbilled_seconds'] as const;
export type RollupSum = (typeof ROLLUP_SUMS)[number];

/**
 * The fields of a rollup row's `counts`: how many facts it sums, how many of them have each
 * amount, and how many miss a pay rate (a key's first row also holds `parts`).
 */
export const COUNT_FIELDS = ['facts', ...FACT_AMOUNTS, 'missing_pay_rate'] as const;

/** The columns that key a rollup row besides its date and members: currencies and rates used. */
export const USED = [
  'cost_currency',
  'cost_rate_id',
  'cost_needs_fx',
  'revenue_currency',
  'revenue_rate_id',
  'revenue_needs_fx',
] as const;

const COLUMN_TYPES: Record<string, string> = {
  workspace_id: 'UUID NOT NULL',
  month: 'DATE NOT NULL',
  entry_date: 'DATE NOT NULL',
  user_id: 'UUID NOT NULL',
  project_id: 'UUID NOT NULL',
  cost_currency: 'VARCHAR',
  cost_rate_id: 'UUID',
  cost_needs_fx: 'BOOLEAN NOT NULL',
  revenue_currency: 'VARCHAR',
  revenue_rate_id: 'UUID',
  revenue_needs_fx: 'BOOLEAN NOT NULL',
};

/**
 * A rollup of the priced facts: its table, its key, and what its macro sums. `grain` names the
 * key's date column; `from` says whether it sums the facts themselves or the member days.
 */
export interface RollupDeclaration {
  table: string;
  /** The macro computing the table's rows (`<table>_for`). */
  macro: string;
  grain: 'month' | 'entry_date';
  /** The key columns, in the table's order (USED last). */
  keyColumns: readonly string[];
  from: 'facts' | 'member_days';
  /** The macro's header comment, SQL lines without the leading `-- `. */
  about: string;
  /** Which facts (or days) a refresh of the dirty keys reads, and which groups it keeps. */
  dirty: { rows: string; groups: string };
}

export const ROLLUP_DECLARATIONS: readonly RollupDeclaration[] = [
  {
    table: 'profitability_month_facts',
    macro: 'profitability_month_facts_for',
    grain: 'month',
    keyColumns: ['workspace_id', 'month', 'user_id', 'project_id', ...USED],
    from: 'facts',
    about: `The priced facts (profitability_facts) summed per workspace, month of work, member, project,
currencies and rates used: profitability_month_facts. For every fact (all_rows), or only
for the (month, member, project) of the keys in summary_dirty_fact_days, which the sync
refreshes, among the facts dated from_day..to_day (the bounds of those keys' months: a literal
range lets DuckDB skip the row groups of other dates). cost_needs_fx / revenue_needs_fx are
part of the key, so that a row of amounts that needed no rate stays apart from one whose
amounts did.`,
    dirty: {
      // A hash probe on (member, project) per fact of those days, the month checked per group.
      rows: '(f.user_id, f.project_id) IN (SELECT (user_id, project_id) FROM summary_dirty_fact_days)',
      groups: `(g.workspace_id, g.month, g.user_id, g.project_id) IN (
      SELECT (workspace_id, entry_month(entry_date), user_id, project_id) FROM summary_dirty_fact_days
    )`,
    },
  },
  {
    table: 'profitability_member_days',
    macro: 'profitability_member_days_for',
    grain: 'entry_date',
    keyColumns: ['workspace_id', 'entry_date', 'user_id', ...USED],
    from: 'facts',
    about: `The priced facts (profitability_facts) summed per workspace, day of work, member, currencies
and rates used, their projects together: profitability_member_days. For every fact
(all_rows), or only for the (day, member) of the keys in summary_dirty_fact_days, among the
facts dated from_day..to_day (the bounds of those keys).`,
    dirty: {
      rows: '(f.entry_date, f.user_id) IN (SELECT (entry_date, user_id) FROM summary_dirty_fact_days)',
      groups: `(g.workspace_id, g.entry_date, g.user_id) IN (
      SELECT (workspace_id, entry_date, user_id) FROM summary_dirty_fact_days
    )`,
    },
  },
  {
    table: 'profitability_member_months',
    macro: 'profitability_member_months_for',
    grain: 'month',
    keyColumns: ['workspace_id', 'month', 'user_id', ...USED],
    from: 'member_days',
    about: `profitability_member_days summed per month: profitability_member_months. For every day
(all_rows), or only for the (month, member) of the keys in summary_dirty_fact_days, among the
days from_day..to_day (the bounds of those keys' months). A sum of sums, so that a missing sum
stays NULL when no day had a missing amount.`,
    dirty: {
      rows: 'f.user_id IN (SELECT user_id FROM summary_dirty_fact_days)',
      groups: `(g.workspace_id, g.month, g.user_id) IN (
      SELECT (workspace_id, entry_month(entry_date), user_id) FROM summary_dirty_fact_days
    )`,
    },
  },
];

const countsType = () =>
  `STRUCT(${[...COUNT_FIELDS, 'parts'].map((f) => `${f} BIGINT`).join(', ')})`;

/**
 * The CREATE TABLE of each rollup (a part's tables: src/readmodel/derived-tables.ts). A report
 * reads a range's whole months from the month rollups, and its other days from the member days
 * or the facts. Sums are BIGINT, as the facts' amounts are: a key whose sums do not all fit 64
 * bits is several rows that add up to them (e4_sum_parts). DuckDB scans and sums BIGINT columns
 * about three times faster than HUGEINT ones (a year of the 10M-entry workspace's rollup for a
 * page of members: 133 ms HUGEINT, 40 ms BIGINT). `counts`, on a key's first row only (NULL on
 * its other parts), says how many fact rows it sums, how many of them have each amount (a sum
 * of none is NULL; a missing sum's count is its amount's less its converted figure's), how many
 * miss a pay rate, and how many rows the key takes (`parts`): what lets a sync batch change the
 * row by the difference of its entries' facts and still tell when a sum returns to NULL, the
 * row goes or its parts must be cut again (docs/summaries.md). Reports never read it.
 */
export function rollupTablesSql(): string {
  return ROLLUP_DECLARATIONS.map((r) => {
    const columns = [
      ...r.keyColumns.map((c) => `${c} ${COLUMN_TYPES[c]}`),
      ...AMOUNT_SUMS.map((s) => `${s} BIGINT`),
      'missing_pay_rate BOOLEAN NOT NULL',
      'unbilled_seconds BIGINT NOT NULL',
      `counts ${countsType()}`,
    ];
    return `-- Made from src/reports/profitability/metrics.ts (${r.macro}).\nCREATE TABLE IF NOT EXISTS ${r.table} (\n  ${columns.join(',\n  ')}\n);`;
  }).join('\n');
}

/** The sums of a group of facts `f` (profitability_facts), as a rollup row holds them. */
function sumsOfFacts(): string[] {
  return [
    ...FACT_AMOUNTS.map((c) => `sum(f.${c}) AS ${c}`),
    ...PRIMARY.map(
      (p) => `sum(f.${p.name}_e4) FILTER (WHERE f.${p.name}_b4 IS NULL) AS ${p.name}_missing_e4`,
    ),
    'bool_or(f.missing_pay_rate) AS missing_pay_rate',
    'sum(f.unbilled_seconds) AS unbilled_seconds',
    `{${[
      "'facts': count(*)",
      ...FACT_AMOUNTS.map((c) => `'${c}': count(f.${c})`),
      "'missing_pay_rate': count(*) FILTER (WHERE f.missing_pay_rate)",
    ].join(', ')}} AS counts`,
  ];
}

/** The sums of a group of rollup rows `f` (a sum of sums: a missing sum stays NULL). */
function sumsOfRollupRows(): string[] {
  return [
    ...AMOUNT_SUMS.map((c) => `sum(f.${c}) AS ${c}`),
    'bool_or(f.missing_pay_rate) AS missing_pay_rate',
    'sum(f.unbilled_seconds) AS unbilled_seconds',
    `{${[...COUNT_FIELDS].map((c) => `'${c}': CAST(sum(f.counts.${c}) AS BIGINT)`).join(', ')}} AS counts`,
  ];
}

const comment = (text: string) =>
  text
    .split('\n')
    .map((line) => `-- ${line}`)
    .join('\n');

function rollupMacro(r: RollupDeclaration): string {
  const date = r.grain === 'month' ? 'entry_month(f.entry_date) AS month' : 'f.entry_date';
  const keys = r.keyColumns.map((c) => (c === r.grain ? date : `f.${c}`));
  const source = r.from === 'facts' ? 'profitability_facts f' : 'profitability_member_days f';
  const sums = r.from === 'facts' ? sumsOfFacts() : sumsOfRollupRows();
  return `${comment(r.about)}
-- Made from src/reports/profitability/metrics.ts.
CREATE OR REPLACE MACRO ${r.macro}(all_rows, from_day, to_day) AS TABLE
WITH summed AS (
  SELECT * FROM (
    SELECT
      ${[...keys, ...sums].join(',\n      ')}
    FROM ${source}
    WHERE all_rows
      OR f.entry_date BETWEEN from_day AND to_day
      AND ${r.dirty.rows}
    GROUP BY ALL
  ) g
  WHERE all_rows
    OR ${r.dirty.groups}
)
SELECT * FROM profitability_rollup_parts('summed');
`;
}

/**
 * profitability_rollup_parts: the rows of a rollup (`summed`: the name of the CTE holding its
 * keys, sums and counts) in 64-bit parts that add up to its sums (e4_sum_parts).
 */
function rollupPartsMacro(): string {
  return `-- The rows of a rollup of the priced facts (\`summed\`: the name of the CTE or table holding its
-- keys, its sixteen sums and its counts, as the rollups' macros write them) in 64-bit parts that
-- add up to its sums (e4_sum_parts): one row nearly always, several when a sum does not fit 64
-- bits. The counts are on part 0, with how many rows the key takes (\`parts\`), NULL on the
-- others. The rollup tables store BIGINT, which DuckDB scans and sums about three times faster
-- than HUGEINT (docs/summaries.md). The columns keep \`summed\`'s order.
-- Made from src/reports/profitability/metrics.ts.
CREATE OR REPLACE MACRO profitability_rollup_parts(summed) AS TABLE
SELECT * EXCLUDE (parts, part) REPLACE (
  ${ROLLUP_SUMS.map((s) => `e4_part(${s}, parts, part) AS ${s}`).join(',\n  ')},
  CASE WHEN part = 0 THEN struct_insert(counts, parts := parts) END AS counts
)
FROM (
  SELECT *, unnest(range(parts)) AS part
  FROM (
    SELECT *, e4_sum_parts(${ROLLUP_SUMS.join(', ')}) AS parts
    FROM query_table(summed)
  )
);
`;
}

/** profitability_fact_rows: the facts of some days in a rollup row's form. */
function factRowsMacro(): string {
  return `-- The facts of days day_from..day_to in the rollup's form (profitability_range_rows).
-- Made from src/reports/profitability/metrics.ts.
CREATE OR REPLACE MACRO profitability_fact_rows(ws, day_from, day_to, user_filter, project_filter, client_filter) AS TABLE
SELECT
  entry_date AS day, user_id, project_id, ${USED.join(', ')},
  ${FACT_AMOUNTS.join(', ')},
  ${PRIMARY.map((p) => `CASE WHEN ${p.name}_b4 IS NULL THEN ${p.name}_e4 END AS ${p.name}_missing_e4`).join(',\n  ')},
  missing_pay_rate,
  unbilled_seconds
FROM profitability_facts
WHERE workspace_id = ws
  AND entry_date BETWEEN day_from AND day_to
  AND (user_filter IS NULL OR user_id = user_filter)
  AND (project_filter IS NULL OR project_id = project_filter)
  AND (client_filter IS NULL OR project_id IN (
    SELECT id FROM projects WHERE workspace_id = ws AND client_id = client_filter
  ));
`;
}

/** The macros made from the declaration, as a part's views (src/readmodel/derived-tables.ts). */
export function rollupViews(): { file: string; sql: string }[] {
  return [
    ...ROLLUP_DECLARATIONS.map((r) => ({ file: `${r.macro}.sql`, sql: rollupMacro(r) })),
    { file: 'profitability_rollup_parts.sql', sql: rollupPartsMacro() },
    { file: 'profitability_fact_rows.sql', sql: factRowsMacro() },
  ];
}

/**
 * What a report reads of a group of rollup rows: every sum as exact text (HUGEINT sums leave
 * DuckDB exact) and missing_pay_rate, in the order of SUMMED.
 */
export const REPORT_SUMS = [
  ...AMOUNT_SUMS.map((c) => `CAST(sum(${c}) AS VARCHAR)`),
  'bool_or(missing_pay_rate)',
  'CAST(sum(unbilled_seconds) AS VARCHAR)',
].join(', ');

/** The columns of REPORT_SUMS, in order: the fifteen amounts, missing_pay_rate, unbilled_seconds. */
export const SUMMED = [...AMOUNT_SUMS, 'missing_pay_rate', 'unbilled_seconds'] as const;
