import { matchRows, type RowChanges } from '../../readmodel/row-writes.ts';
import { e4Part, e4Parts, largest, PART_SIZE, type E4 } from './e4.ts';
import type { FactRow } from './fact-pricing.ts';
import { COUNT_FIELDS, FACT_AMOUNTS, NATIVE, ROLLUP_DECLARATIONS, ROLLUP_SUMS } from './metrics.ts';

export { COUNT_FIELDS, ROLLUP_SUMS };

/**
 * The rollups of the priced facts changed by deltas, in process: a sync batch's old facts of
 * its entries subtracted, their new facts added, per key of each rollup (its month or day,
 * member, project for the month rollup, currencies and rates used). Each key's stored rows are
 * summed (its 64-bit parts and its counts), the deltas added, and the key written again in the
 * parts e4_sum_parts gives the new sums: the rows profitability_month_facts_for,
 * profitability_member_days_for and profitability_member_months_for would compute for it
 * (sql/views/), which stay the definition. A sum whose count of contributing facts comes back to
 * 0 is NULL again, and a key whose count of facts does is deleted. A key whose counts do not
 * change (addsInPlace) is written as an addition to its row, without reading it.
 */

/** The ten amounts of a fact, each with its own count, in the order of ROLLUP_SUMS. */
const AMOUNTS = FACT_AMOUNTS;
/** Where ROLLUP_SUMS and COUNT_FIELDS hold what the loops below add (metrics.ts's order). */
const CONVERTED_AT = NATIVE.length;
const MISSING_AT = FACT_AMOUNTS.length;
const UNBILLED_AT = ROLLUP_SUMS.indexOf('unbilled_seconds');
const MISSING_PAY_RATE_AT = COUNT_FIELDS.indexOf('missing_pay_rate');

export type KeyValue = string | boolean | null;

/** A rollup table: its key columns, and the key of a fact in it. */
export interface Rollup {
  table: string;
  /** The key columns, in the table's order (USED last). */
  keyColumns: readonly string[];
  /** The values of keyColumns for a fact. */
  keyOf(fact: FactRow): KeyValue[];
}

const month = (date: string) => `${date.slice(0, 8)}01`;

/** The rollups as metrics.ts declares them, each with the key of a fact in it. */
export const ROLLUPS: readonly Rollup[] = ROLLUP_DECLARATIONS.map((r) => ({
  table: r.table,
  keyColumns: r.keyColumns,
  keyOf: (f) =>
    r.keyColumns.map((c) =>
      c === 'month' ? month(f.entry_date) : (f[c as keyof FactRow] as KeyValue),
    ),
}));

/** A stored rollup row as read: its rowid, key, sums, missing_pay_rate and counts. */
export interface RollupRow {
  rowid: string;
  key: KeyValue[];
  /** In ROLLUP_SUMS order. */
  sums: (E4 | null)[];
  missingPayRate: boolean;
  /** In COUNT_FIELDS order; null on a key's parts after the first. */
  counts: bigint[] | null;
  /** How many rows the key takes (counts.parts), on its first only. */
  parts: bigint | null;
}

/** A rollup row to write: key, sums, missing_pay_rate, counts. */
export type NewRollupRow = Omit<RollupRow, 'rowid'>;

/** What a key adds up to, or how it changes: its sums (NULL as 0) and its counts. */
export interface KeySums {
  key: KeyValue[];
  /** In ROLLUP_SUMS order. */
  sums: bigint[];
  /** In COUNT_FIELDS order. */
  counts: bigint[];
}

export const keyText = (key: readonly KeyValue[]) => JSON.stringify(key);

/** A rollup's stored rows no longer equal to the facts they sum. */
export class RollupMismatch extends Error {}

const zero = (key: KeyValue[]): KeySums => ({
  key,
  sums: ROLLUP_SUMS.map(() => 0n),
  counts: COUNT_FIELDS.map(() => 0n),
});

/**
 * How each key of `rollup` changes when `oldFacts` are replaced by `newFacts`: the new facts'
 * sums and counts less the old's, for the keys where anything differs.
 */
export function rollupDeltas(
  rollup: Rollup,
  oldFacts: readonly FactRow[],
  newFacts: readonly FactRow[],
): Map<string, KeySums> {
  const deltas = new Map<string, KeySums>();
  const add = (fact: FactRow, sign: bigint) => {
    const key = rollup.keyOf(fact);
    const text = keyText(key);
    let d = deltas.get(text);
    if (!d) deltas.set(text, (d = zero(key)));
    AMOUNTS.forEach((amount, i) => {
      const value = fact[amount];
      d.sums[i]! += sign * (value ?? 0n);
      if (value !== null) d.counts[i + 1]! += sign;
    });
    // *_missing_e4: the native amounts without a converted figure.
    for (let i = 0; i < CONVERTED_AT; i++) {
      const native = fact[AMOUNTS[i]!];
      if (native !== null && fact[AMOUNTS[CONVERTED_AT + i]!] === null)
        d.sums[MISSING_AT + i]! += sign * native;
    }
    d.sums[UNBILLED_AT]! += sign * fact.unbilled_seconds;
    d.counts[0]! += sign;
    if (fact.missing_pay_rate) d.counts[MISSING_PAY_RATE_AT]! += sign;
  };
  for (const fact of oldFacts) add(fact, -1n);
  for (const fact of newFacts) add(fact, 1n);
  for (const [text, d] of deltas)
    if (d.sums.every((x) => x === 0n) && d.counts.every((x) => x === 0n)) deltas.delete(text);
  return deltas;
}

/**
 * The changes that bring `rollup`'s rows of the keys in `deltas` from what `stored` holds
 * (every stored row of those keys; rows of other keys are ignored) to their stored totals plus
 * their deltas.
 */
export function rollupChanges(
  stored: readonly RollupRow[],
  deltas: ReadonlyMap<string, KeySums>,
): RowChanges<NewRollupRow> {
  const totals = new Map<string, KeySums>();
  const rowsOf = new Map<string, RollupRow[]>();
  for (const [text, d] of deltas)
    totals.set(text, { key: d.key, sums: [...d.sums], counts: [...d.counts] });
  for (const row of stored) {
    const text = keyText(row.key);
    const t = totals.get(text);
    if (!t) continue;
    row.sums.forEach((s, i) => (t.sums[i]! += s ?? 0n));
    row.counts?.forEach((c, i) => (t.counts[i]! += c));
    rowsOf.set(text, [...(rowsOf.get(text) ?? []), row]);
  }
  const changes: RowChanges<NewRollupRow> = { updates: [], inserts: [], deletes: [] };
  for (const [text, t] of totals) {
    const have = (rowsOf.get(text) ?? []).map((row) => ({ rowid: row.rowid, row }));
    matchRows(have, rowsFor(t), sameRow, changes);
  }
  return changes;
}

/**
 * The rows of a key from its totals (profitability_rollup_parts): none when no fact is left;
 * else its sums, NULL where no fact has the amount (a missing sum: where every native amount
 * had its converted figure), in e4_sum_parts rows with the counts on the first.
 */
function rowsFor(t: KeySums): NewRollupRow[] {
  const [facts = 0n, ...amountCounts] = t.counts;
  const missingPayRates = t.counts[MISSING_PAY_RATE_AT]!;
  const check = (ok: boolean) => {
    if (!ok) throw new RollupMismatch(`rollup key ${keyText(t.key)}: counts ${t.counts.join()}`);
  };
  check(t.counts.every((c) => c >= 0n) && missingPayRates <= facts);
  if (facts === 0n) {
    check(t.sums.every((s) => s === 0n) && t.counts.every((c) => c === 0n));
    return [];
  }
  const sums: (E4 | null)[] = t.sums.map((sum, i) => {
    let contributors: bigint;
    if (i < MISSING_AT) contributors = amountCounts[i]!;
    else if (i < UNBILLED_AT)
      contributors = amountCounts[i - MISSING_AT]! - amountCounts[i - MISSING_AT + CONVERTED_AT]!;
    else return sum;
    check(contributors >= 0n && (contributors > 0n || sum === 0n));
    return contributors === 0n ? null : sum;
  });
  const parts = e4Parts(largest(sums));
  const rows: NewRollupRow[] = [];
  for (let part = 0n; part < parts; part++)
    rows.push({
      key: t.key,
      sums: sums.map((s) => e4Part(s, parts, part)),
      missingPayRate: missingPayRates > 0n,
      counts: part === 0n ? t.counts : null,
      parts: part === 0n ? parts : null,
    });
  return rows;
}

function sameRow(a: NewRollupRow, b: NewRollupRow): boolean {
  return (
    a.missingPayRate === b.missingPayRate &&
    a.parts === b.parts &&
    a.sums.every((s, i) => s === b.sums[i]) &&
    (a.counts === null
      ? b.counts === null
      : b.counts !== null && a.counts.every((c, i) => c === b.counts![i]))
  );
}

/**
 * Whether a key's change can be written as an addition to its one stored row, without reading
 * it (fact-refresh.ts): no fact comes or goes and none gains or loses an amount (every count
 * is as it was, so every sum stays NULL or not, and the row stays), and each change of a sum is
 * below 2^62, so that a row of one part (its sums at most 2^62) plus it stays within 64 bits;
 * whether the sums stay at most 2^62 (one part) the UPDATE itself checks.
 */
export const addsInPlace = (d: KeySums) =>
  d.counts.every((c) => c === 0n) && d.sums.every((s) => (s < 0n ? -s : s) < PART_SIZE);
