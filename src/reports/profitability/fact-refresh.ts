import type { DuckDBConnection } from '@duckdb/node-api';
import { currencyScale } from '../../money/currencies.ts';
import {
  matchRows,
  noChanges,
  sql,
  unchanged,
  writeRows,
  type Literal,
  type RowChanges,
} from '../../readmodel/row-writes.ts';
import { staleIdsUpTo, type StaleEntries } from '../../readmodel/stale-keys.ts';
import { groupBy, readTagged, taggedSql, type TaggedRows } from '../../readmodel/tagged-rows.ts';
import { LeftToSql, moneyE4, PART_SIZE, rateE10, type E4 } from './e4.ts';
import {
  FACT_COLUMNS,
  fxNeedKey,
  priceFacts,
  type ApprovedLine,
  type Base,
  type FactRow,
  type FxNeed,
  type FxRate,
  type InvoiceLine,
  type Payee,
  type PayRate,
  type PricedEntry,
  type PricingInputs,
} from './fact-pricing.ts';
import {
  COUNT_FIELDS,
  ROLLUP_SUMS,
  ROLLUPS,
  addsInPlace,
  rollupChanges,
  rollupDeltas,
  type KeySums,
  type KeyValue,
  type NewRollupRow,
  type Rollup,
  type RollupRow,
} from './fact-rollups.ts';

/**
 * A sync batch's refresh of the priced facts and their rollups for a few stale entries, in
 * process (docs/summaries.md, "Every sync batch"). Four statements read, each a few plain
 * scans filtered by ids: the stale entries' ids; their rows, old facts and bill and invoice
 * lines; their workspaces, payees and pay rates with the rollup rows of their keys; the FX rates
 * they need, when they need any. The facts are priced (fact-pricing.ts) and the rollups changed
 * by deltas (fact-rollups.ts) in BigInt, and each table written only where a row changes
 * (src/readmodel/row-writes.ts): an UPDATE of the changed columns of a row by its rowid, nearly
 * always. Pricing one entry with profitability_facts_for and summing its rollups again from
 * their macros ran seventeen statements, four of them 15-60 ms each whatever they priced.
 *
 * Returns false, having written nothing, when the batch is left to the macros: more stale
 * entries than `upTo`, or a case the in-process rules leave to them (LeftToSql).
 */
export async function refreshFactsInProcess(
  duck: DuckDBConnection,
  stale: StaleEntries,
  upTo: number,
): Promise<boolean> {
  const ids = await staleIdsUpTo(duck, stale, upTo);
  if (ids === undefined) return false;
  if (ids.length === 0) return true;
  const first = await readTagged(duck, entriesSql(ids));
  try {
    const oldFacts = (first.get('f') ?? []).map(([rowid, ...values]) => ({
      rowid: rowid!,
      row: parseFact(values),
    }));
    const entries = parseEntries(first);
    if (entries.length === 0 && oldFacts.length === 0) return true;
    const second: TaggedRows =
      entries.length > 0 ? await readTagged(duck, contextSql(entries)) : new Map<string, []>();
    const inputs = parseInputs(entries, first, second);
    const pricing = priceFacts(inputs);
    const rates = new Map<string, FxRate>();
    if (pricing.needs.length > 0) {
      const fx = await readTagged(duck, taggedSql(fxParts(pricing.needs, inputs.bases)));
      for (const [key, id, rate] of fx.get('x') ?? [])
        if (id) rates.set(key!, { id, rateE10: rateE10(rate!) });
    }
    const newFacts = pricing.finish(rates);

    const factChanges = noChanges<FactRow>();
    const oldOf = groupBy(oldFacts, ({ row }) => row.time_entry_id);
    const newOf = groupBy(newFacts, (fact) => fact.time_entry_id);
    for (const id of ids)
      matchRows(oldOf.get(id) ?? [], newOf.get(id) ?? [], sameFact, factChanges);
    if (unchanged(factChanges)) return true;
    const deltas = ROLLUPS.map((rollup) =>
      rollupDeltas(
        rollup,
        oldFacts.map(({ row }) => row),
        newFacts,
      ),
    );
    await writeRows(duck, 'profitability_facts', FACT_COLUMNS, literals(factChanges, factLiterals));
    // A few keys whose counts stay: added to in place; the others read and written again.
    const inPlace = deltas.every(
      (d) => d.size <= IN_PLACE_KEYS && [...d.values()].every(addsInPlace),
    );
    const reread = ROLLUPS.map(() => new Map<string, KeySums>());
    for (const [i, rollup] of ROLLUPS.entries())
      for (const [text, d] of deltas[i]!)
        if (!inPlace || !(await addInPlace(duck, rollup, d))) reread[i]!.set(text, d);
    if (reread.every((d) => d.size === 0)) return true;
    const keys = ROLLUPS.map(
      (rollup, i) => new Set([...reread[i]!.values()].map((d) => coarseKey(rollup, d.key))),
    );
    const stored = await readTagged(duck, taggedSql(rollupParts(keys)));
    for (const [i, rollup] of ROLLUPS.entries()) {
      if (reread[i]!.size === 0) continue;
      const rows = (stored.get(ROLLUP_TAGS[i]!) ?? []).map((r) => parseRollupRow(rollup, r));
      await writeRows(
        duck,
        rollup.table,
        rollupColumns(rollup),
        literals(rollupChanges(rows, reread[i]!), (row) => rollupLiterals(rollup, row)),
      );
    }
    return true;
  } catch (error) {
    if (error instanceof LeftToSql) return false;
    throw error;
  }
}

/** Keys of a rollup changed in place at most (one UPDATE each); more are read and written again. */
const IN_PLACE_KEYS = 2;

/**
 * Adds a key's change to its one stored row (addsInPlace: its counts stay), in one UPDATE of
 * the sums that change; the row must be its key's only one (counts.parts = 1) and stay so (each
 * sum at most 2^62 after). Returns whether it was: if not (two rows, or a sum past 2^62), the
 * caller reads the key and writes it again.
 */
export async function addInPlace(
  duck: DuckDBConnection,
  rollup: Rollup,
  d: KeySums,
): Promise<boolean> {
  const changed = ROLLUP_SUMS.map((column, i) => ({ column, delta: d.sums[i]! })).filter(
    ({ delta }) => delta !== 0n,
  );
  if (changed.length === 0) return true;
  const key = rollup.keyColumns.map((column, i) => {
    const value = d.key[i] ?? null;
    return value === null ? `${column} IS NULL` : `${column} = ${literal(keyType(column), value)}`;
  });
  const result = await duck.run(
    `UPDATE ${rollup.table}
     SET ${changed.map(({ column, delta }) => `${column} = ${column} + ${sql.bigint(delta)}`).join(', ')}
     WHERE ${key.join(' AND ')} AND counts.parts = 1
       AND ${changed.map(({ column, delta }) => `abs(${column} + ${sql.bigint(delta)}) <= ${PART_SIZE}`).join(' AND ')}`,
  );
  return result.rowsChanged === 1;
}

const inList = (values: Iterable<string>, literal: (v: string) => Literal) =>
  [...new Set(values)].map(literal).join(', ');

/**
 * For the stale entries `ids`: the live, stopped ones, their stored facts with rowids, their TIME
 * lines on APPROVED bills with the bills' figures (team_bill_figures) and their lines on live
 * SENT or PAID invoices with the invoices (what profitability_facts_for reads of them).
 */
function entriesSql(staleIds: readonly string[]): string {
  const ids = inList(staleIds, sql.uuid);
  return taggedSql(
    [
      [
        'e',
        [
          'id',
          'workspace_id',
          'user_id',
          'project_id',
          'entry_date',
          'duration_seconds',
          'billable',
        ],
        'FROM entries WHERE deleted_at IS NULL AND NOT is_running',
      ],
      ['f', ['rowid', ...FACT_COLUMNS], 'FROM facts'],
      [
        'b',
        [
          'l.id',
          'l.time_entry_id',
          'b.workspace_id',
          'l.amount',
          'b.currency',
          'b.subtotal',
          'b.adjustment_total',
          'b.amount_paid',
        ],
        `FROM bill_lines l JOIN team_bill_figures b ON b.bill_id = l.bill_id
         WHERE l.kind = 'TIME' AND b.status = 'APPROVED'`,
      ],
      [
        'i',
        [
          'l.id',
          'l.time_entry_id',
          'i.workspace_id',
          'l.amount',
          'i.currency',
          'i.issue_date',
          'i.subtotal',
          'i.discount_amount',
          'i.total',
          'i.amount_paid',
        ],
        `FROM invoice_lines_of l JOIN invoices i ON i.id = l.invoice_id
         WHERE i.deleted_at IS NULL AND i.status IN ('SENT', 'PAID')`,
      ],
    ],
    [
      { name: 'entries', table: 'time_entries', column: 'id', keys: ids },
      { name: 'facts', table: 'profitability_facts', column: 'time_entry_id', keys: ids },
      { name: 'bill_lines', table: 'team_bill_lines', column: 'time_entry_id', keys: ids },
      { name: 'invoice_lines_of', table: 'invoice_lines', column: 'time_entry_id', keys: ids },
    ],
  );
}

const ROLLUP_TAGS = ['m', 'd', 'n'];

/** A rollup row's coarse key: what its rows are read by (workspace, date or month, user[, project]). */
function coarseKey(rollup: Rollup, key: readonly KeyValue[]): string {
  return key.slice(0, rollup.keyColumns.indexOf('cost_currency')).join('|');
}

/** The columns a rollup row is read and written with (its key, sums, flag and counts). */
const rollupColumns = (rollup: Rollup) => [
  ...rollup.keyColumns,
  ...ROLLUP_SUMS,
  'missing_pay_rate',
  'counts',
];

/** The entries' workspaces, and their users' live payees with those payees' live pay rates. */
function contextSql(entries: readonly PricedEntry[]): string {
  const workspaces = inList(
    entries.map((e) => e.workspaceId),
    sql.uuid,
  );
  const users = inList(
    entries.map((e) => e.userId),
    sql.uuid,
  );
  return taggedSql([
    ['w', ['id', 'base_currency'], `FROM workspaces WHERE id IN (${workspaces})`],
    [
      'p',
      ['id', 'workspace_id', 'user_id', 'start_date'],
      `FROM payees WHERE deleted_at IS NULL AND user_id IN (${users})`,
    ],
    [
      'r',
      ['payee_id', 'workspace_id', 'effective_from', 'hourly_rate', 'currency'],
      `FROM payee_rates WHERE deleted_at IS NULL AND payee_id IN (
         SELECT id FROM payees WHERE deleted_at IS NULL AND user_id IN (${users}))`,
    ],
  ]);
}

/**
 * Each rollup's rows of the coarse keys `keys` (read by the IN lists of each key column, the
 * rows of other keys dropped after), with rowids.
 */
function rollupParts(keys: Set<string>[]): [string, string[], string][] {
  const parts: [string, string[], string][] = [];
  ROLLUPS.forEach((rollup, i) => {
    const coarse = [...keys[i]!].map((k) => k.split('|'));
    if (coarse.length === 0) return;
    const columns = rollup.keyColumns.slice(0, coarse[0]!.length);
    // Each column's values (which DuckDB checks against each row group's min and max), and,
    // for several keys, the keys themselves (the lists alone match every combination): as
    // conditions for a few, joined with a VALUES list past that (50 keys: 20 ms against 3).
    const where = columns.map(
      (column, j) =>
        `${column} IN (${inList(
          coarse.map((k) => k[j]!),
          (v) => literal(keyType(column), v),
        )})`,
    );
    const row = (k: string[]) => columns.map((column, j) => literal(keyType(column), k[j]!));
    let join = '';
    if (coarse.length > 1 && coarse.length <= KEYS_AS_CONDITIONS)
      where.push(
        `(${coarse
          .map(
            (k) =>
              `(${row(k)
                .map((v, j) => `${columns[j]} = ${v}`)
                .join(' AND ')})`,
          )
          .join(' OR ')})`,
      );
    else if (coarse.length > KEYS_AS_CONDITIONS)
      join = `SEMI JOIN (VALUES ${coarse.map((k) => `(${row(k).join(', ')})`).join(', ')})
        k(${columns.map((_, j) => `k${j}`).join(', ')})
        ON ${columns.map((c, j) => `t.${c} = k.k${j}`).join(' AND ')}`;
    parts.push([
      ROLLUP_TAGS[i]!,
      [
        'rowid',
        ...rollupColumns(rollup).slice(0, -1),
        `CASE WHEN counts IS NOT NULL THEN concat_ws(',', ${[...COUNT_FIELDS, 'parts'].map((f) => `counts.${f}`).join(', ')}) END`,
      ],
      `FROM ${rollup.table} t ${join} WHERE ${where.join(' AND ')}`,
    ]);
  });
  return parts;
}

/** Rollup keys read by conditions at most; more, by a join with their list. */
const KEYS_AS_CONDITIONS = 4;

/** Needs of FX rates looked up one by one at most; more, by one ASOF join. */
const FX_LOOKUPS = 4;

/**
 * The FX rate into its workspace's base currency of each (currency, day) in `needs`, as
 * profitability_facts_for's day_fx finds it: the live rate of the latest effective_from on or
 * before the day (none: a row of NULLs, or no row).
 */
function fxParts(
  needs: readonly FxNeed[],
  bases: ReadonlyMap<string, Base>,
): [string, string[], string][] {
  const base = (n: FxNeed) => sql.text(bases.get(n.workspaceId)!.currency);
  if (needs.length <= FX_LOOKUPS)
    return needs.map((n) => [
      'x',
      [sql.text(fxNeedKey(n)), 'arg_max(id, effective_from)', 'arg_max(rate, effective_from)'],
      `FROM fx_rates_live WHERE workspace_id = ${sql.uuid(n.workspaceId)}
         AND from_currency = ${sql.text(n.currency)} AND to_currency = ${base(n)}
         AND effective_from <= ${sql.date(n.date)}`,
    ]);
  const values = needs.map(
    (n) =>
      `(${sql.text(fxNeedKey(n))}, ${sql.uuid(n.workspaceId)}, ${sql.text(n.currency)}, ${sql.date(n.date)}, ${base(n)})`,
  );
  return [
    [
      'x',
      ['n.k', 'r.id', 'r.rate'],
      `FROM (VALUES ${values.join(', ')}) n(k, ws, currency, day, base)
       ASOF JOIN fx_rates_live r ON r.workspace_id = n.ws AND r.from_currency = n.currency
         AND r.to_currency = n.base AND n.day >= r.effective_from`,
    ],
  ];
}

const bool = (v: string | null) => v === 'true';
const int = (v: string | null) => (v === null ? null : BigInt(v));

/** The known scale of a currency (the read model's currencies table is filled from this list). */
const scaleOf = (currency: string) => currencyScale(currency) ?? null;

function parseEntries(read: TaggedRows): PricedEntry[] {
  return (read.get('e') ?? []).map(([id, ws, user, project, date, duration, billable]) => ({
    id: id!,
    workspaceId: ws!,
    userId: user!,
    projectId: project!,
    entryDate: date!,
    durationSeconds: BigInt(duration!),
    billable: bool(billable!),
  }));
}

/**
 * What the pricing reads (PricingInputs): from the first statement the lines, kept when their
 * bill or invoice is of the entry's workspace; from the second the bases, payees and rates.
 */
function parseInputs(entries: PricedEntry[], first: TaggedRows, second: TaggedRows): PricingInputs {
  const workspaceOf = new Map(entries.map((e) => [e.id, e.workspaceId]));
  const bases = new Map<string, Base>(
    (second.get('w') ?? []).map(([id, currency]) => [
      id!,
      { currency: currency!, scale: scaleOf(currency!) },
    ]),
  );
  const payees: Payee[] = (second.get('p') ?? []).map(([id, ws, user, start]) => ({
    id: id!,
    workspaceId: ws!,
    userId: user!,
    startDate: start ?? null,
  }));
  const rates: PayRate[] = (second.get('r') ?? []).map(([payee, ws, from, rate, currency]) => ({
    payeeId: payee!,
    workspaceId: ws!,
    effectiveFrom: from!,
    hourlyRateE4: moneyE4(rate!),
    currency: currency!,
    scale: scaleOf(currency!),
  }));
  const approvedLines: ApprovedLine[] = (first.get('b') ?? [])
    .filter(([, entry, ws]) => workspaceOf.get(entry!) === ws)
    .map(([line, entry, , amount, currency, subtotal, adjustment, paid]) => ({
      lineId: line!,
      entryId: entry!,
      amountE4: moneyE4(amount!),
      currency: currency!,
      scale: scaleOf(currency!),
      subtotalE4: moneyE4(subtotal!),
      adjustmentE4: moneyE4(adjustment!),
      amountPaidE4: moneyE4(paid!),
    }));
  const invoiceLines: InvoiceLine[] = (first.get('i') ?? [])
    .filter(([, entry, ws]) => workspaceOf.get(entry!) === ws)
    .map(([line, entry, , amount, currency, issue, subtotal, discount, total, paid]) => ({
      lineId: line!,
      entryId: entry!,
      amountE4: moneyE4(amount!),
      currency: currency!,
      scale: scaleOf(currency!),
      issueDate: issue ?? null,
      subtotalE4: moneyE4(subtotal!),
      discountE4: moneyE4(discount!),
      totalE4: moneyE4(total!),
      amountPaidE4: moneyE4(paid!),
    }));
  return { entries, bases, payees, rates, approvedLines, invoiceLines };
}

const FACT_TYPES: Record<
  (typeof FACT_COLUMNS)[number],
  'uuid' | 'date' | 'text' | 'bigint' | 'boolean'
> = {
  workspace_id: 'uuid',
  time_entry_id: 'uuid',
  user_id: 'uuid',
  project_id: 'uuid',
  entry_date: 'date',
  cost_currency: 'text',
  cost_rate_id: 'uuid',
  cost_needs_fx: 'boolean',
  approved_e4: 'bigint',
  paid_e4: 'bigint',
  estimated_e4: 'bigint',
  approved_b4: 'bigint',
  paid_b4: 'bigint',
  estimated_b4: 'bigint',
  revenue_currency: 'text',
  revenue_rate_id: 'uuid',
  revenue_needs_fx: 'boolean',
  billed_e4: 'bigint',
  collected_e4: 'bigint',
  billed_b4: 'bigint',
  collected_b4: 'bigint',
  missing_pay_rate: 'boolean',
  unbilled_seconds: 'bigint',
};

function parseFact(values: (string | null)[]): FactRow {
  const fact: Record<string, string | bigint | boolean | null> = {};
  FACT_COLUMNS.forEach((column, i) => {
    const v = values[i] ?? null;
    const type = FACT_TYPES[column];
    fact[column] = type === 'bigint' ? int(v) : type === 'boolean' ? bool(v) : v;
  });
  return fact as unknown as FactRow;
}

function literal(type: 'uuid' | 'date' | 'text' | 'bigint' | 'boolean', value: unknown): Literal {
  switch (type) {
    case 'uuid':
      return sql.uuid(value as string | null);
    case 'date':
      return sql.date(value as string | null);
    case 'text':
      return sql.text(value as string | null);
    case 'bigint':
      return sql.bigint(value as bigint | null);
    case 'boolean':
      return sql.boolean(value as boolean | null);
  }
}

const factLiterals = (fact: FactRow): Literal[] =>
  FACT_COLUMNS.map((column) => literal(FACT_TYPES[column], fact[column]));

const sameFact = (a: FactRow, b: FactRow) => FACT_COLUMNS.every((c) => a[c] === b[c]);

/** The type of a rollup's key column. */
const keyType = (column: string) =>
  column === 'month' || column === 'entry_date'
    ? 'date'
    : column === 'cost_currency' || column === 'revenue_currency'
      ? 'text'
      : column.endsWith('_needs_fx')
        ? 'boolean'
        : 'uuid';

function parseRollupRow(rollup: Rollup, values: (string | null)[]): RollupRow {
  const [rowid, ...rest] = values;
  const n = rollup.keyColumns.length;
  const key: KeyValue[] = rollup.keyColumns.map((column, i) =>
    keyType(column) === 'boolean' ? bool(rest[i]!) : (rest[i] ?? null),
  );
  const sums = ROLLUP_SUMS.map((_, i) => int(rest[n + i] ?? null));
  const counts = rest[n + ROLLUP_SUMS.length + 1] ?? null;
  const numbers = counts === null ? null : counts.split(',').map((c) => BigInt(c));
  return {
    rowid: rowid!,
    key,
    sums,
    missingPayRate: bool(rest[n + ROLLUP_SUMS.length]!),
    counts: numbers?.slice(0, COUNT_FIELDS.length) ?? null,
    parts: numbers?.[COUNT_FIELDS.length] ?? null,
  };
}

function rollupLiterals(rollup: Rollup, row: NewRollupRow): Literal[] {
  return [
    ...rollup.keyColumns.map((column, i) => literal(keyType(column), row.key[i])),
    ...row.sums.map((s: E4 | null) => sql.bigint(s)),
    sql.boolean(row.missingPayRate),
    row.counts === null
      ? 'NULL'
      : `{${[...COUNT_FIELDS.map((f, i) => `'${f}': ${sql.bigint(row.counts![i]!)}`), `'parts': ${sql.bigint(row.parts)}`].join(', ')}}`,
  ];
}

function literals<Row>(
  changes: RowChanges<Row>,
  of: (row: Row) => Literal[],
): RowChanges<Literal[]> {
  return {
    updates: changes.updates.map(({ rowid, row, old }) => ({ rowid, row: of(row), old: of(old) })),
    inserts: changes.inserts.map(of),
    deletes: changes.deletes,
  };
}
