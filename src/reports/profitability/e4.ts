import { decimalUnits } from '../../money/money.ts';

/**
 * The exact money arithmetic of the profitability macros (sql/duckdb/macros.sql: e4 counts,
 * integer counts of 10^-4 units) in BigInt, for the facts a sync batch prices in process
 * (fact-pricing.ts). Each function is the macro of the same name, NULL included (null here):
 * the macros stay the definition, and test/reports/summaries-incremental.test.ts compares the two.
 *
 * Where DuckDB would fail (a 128-bit overflow, a sum past what e4_parts stores), these throw
 * LeftToSql, and the batch is priced by the macros, which fail as before.
 */

/** A case the in-process path leaves to the SQL macros (which decide it, or fail on it). */
export class LeftToSql extends Error {}

export type E4 = bigint;

/** 2^62: the largest part of a sum stored in one BIGINT row (e4_parts). */
export const PART_SIZE = 1n << 62n;
/** 2^82: the largest sum e4_parts stores (2^20 rows); past it the macro fails. */
const LARGEST_SUM = 4835703278458516698824704n;
/** HUGEINT's range: |x| < 2^127. */
const HUGEINT_BOUND = 1n << 127n;

const abs = (x: bigint) => (x < 0n ? -x : x);
const sign = (x: bigint) => (x > 0n ? 1n : x < 0n ? -1n : 0n);

/** minor_unit_e4 / unit_e4: 10^-4 units in one minor unit of a currency with `scale` decimals. */
export function unitE4(scale: number): bigint {
  switch (scale) {
    case 0:
      return 10000n;
    case 1:
      return 1000n;
    case 2:
      return 100n;
    case 3:
      return 10n;
    default:
      return 1n;
  }
}

/** A value within HUGEINT, or LeftToSql: DuckDB fails on the overflow. */
function huge(x: bigint): bigint {
  if (abs(x) >= HUGEINT_BOUND) throw new LeftToSql('a HUGEINT overflow');
  return x;
}

/**
 * mul_div_round_half_away: a x b / (c x unit) rounded half away from zero. Both branches of the
 * macro compute this value; its HUGEINT branch fails where 2|a x b| + |c x unit| passes 128
 * bits, and so does this. DuckDB's integer division by zero is NULL.
 */
export function mulDivRoundHalfAway(
  a: E4 | null,
  b: E4 | null,
  c: E4 | null,
  unit: bigint,
): E4 | null {
  if (a === null || b === null || c === null) return null;
  const n = huge(a * b);
  const d = huge(c * unit);
  if (d === 0n) return null;
  return sign(n) * sign(d) * (huge(2n * abs(n) + abs(d)) / huge(2n * abs(d)));
}

/** e4_share: amount x part / whole rounded to a whole number of `unit`. */
export function e4Share(amount: E4 | null, part: E4 | null, whole: E4 | null, unit: bigint) {
  const units = mulDivRoundHalfAway(amount, part, whole, unit);
  return units === null ? null : huge(units * unit);
}

/** e4_round: amount rounded half away from zero to a whole number of `unit`. */
export function e4Round(amount: E4 | null, unit: bigint): E4 | null {
  return e4Share(amount, 1n, 1n, unit);
}

/** e4_share_capped: amount x min(part / whole, 1), rounded; 0 when whole is 0. */
export function e4ShareCapped(
  amount: E4 | null,
  part: E4 | null,
  whole: E4 | null,
  unit: bigint,
): E4 | null {
  if (whole === null) return null;
  if (whole === 0n) return 0n;
  if (part === null) return null;
  return sign(whole) * huge(part - whole) >= 0n
    ? e4Round(amount, unit)
    : e4Share(amount, part, whole, unit);
}

/** e4_invoice_line_net: amount x net / subtotal rounded; the amount rounded when subtotal is 0. */
export function e4InvoiceLineNet(
  amount: E4 | null,
  net: E4 | null,
  subtotal: E4 | null,
  unit: bigint,
): E4 | null {
  return subtotal === 0n ? e4Round(amount, unit) : e4Share(amount, net, subtotal, unit);
}

/** e4_to_base: the amount itself when it needs no rate (or is 0), converted otherwise. */
export function e4ToBase(
  amount: E4 | null,
  converts: boolean,
  rateE10: bigint | null,
  unit: bigint,
): E4 | null {
  if (amount === null) return null;
  if (!converts || amount === 0n) return amount;
  return e4Share(amount, rateE10, 10_000_000_000n, unit);
}

/** The largest size among some sums (NULL: 0). */
export function largest(values: readonly (E4 | null)[]): bigint {
  let max = 0n;
  for (const v of values) if (v !== null && abs(v) > max) max = abs(v);
  return max;
}

/**
 * e4_parts / e4_parts_of / e4_sum_parts, given the largest size of the sums (`largest`): how
 * many rows hold them.
 */
export function e4Parts(largestSize: bigint): bigint {
  if (largestSize <= PART_SIZE) return 1n;
  if (largestSize <= LARGEST_SUM) return (largestSize + PART_SIZE - 1n) / PART_SIZE;
  throw new LeftToSql('a sum too large to store');
}

/** e4_part: part `p` (0 to n - 1) of the sum s in n rows (NULL stays NULL). */
export function e4Part(s: E4 | null, n: bigint, p: bigint): E4 | null {
  if (s === null || n === 1n) return s;
  return s / n + (p < abs(s % n) ? sign(s) : 0n);
}

/** money_e4 / money_to_e4 of a DECIMAL(18,4) or DECIMAL(38,4) printed by DuckDB. */
export const moneyE4 = (text: string): E4 => decimalUnits(text, 4);

/** rate_e10 of a DECIMAL(18,10) printed by DuckDB. */
export const rateE10 = (text: string): bigint => decimalUnits(text, 10);
