import { Decimal } from 'decimal.js';

/**
 * The oracle's own decimal arithmetic (docs/contract.md, "Money and rounding"), sharing nothing
 * with src/money: a Decimal clone with 80 significant digits, so every sum and product of snapshot
 * amounts is exact and a quotient is exact to far more digits than any rounding below looks at.
 * ROUND_HALF_UP in decimal.js rounds a tie away from zero (-0.005 -> -0.01).
 */
export const Dec = Decimal.clone({
  precision: 80,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});
export type Dec = Decimal;

export const ZERO: Dec = new Dec(0);

/** Parses a decimal string of the snapshot. */
export function dec(text: string): Dec {
  return new Dec(text);
}

const ZERO_DECIMAL = new Set(['JPY', 'KRW', 'VND', 'CLP', 'ISK']);
const THREE_DECIMAL = new Set(['BHD', 'KWD', 'OMR', 'JOD', 'TND']);

/**
 * Minor units of a currency: the table of docs/contract.md, "Money and rounding"; every code not
 * listed there has 2.
 */
export function currencyScale(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/** Rounds half away from zero to `scale` decimals. */
export function roundTo(value: Dec, scale: number): Dec {
  return value.toDecimalPlaces(scale, Dec.ROUND_HALF_UP);
}

/** Rounds to the currency's minor unit. */
export function roundMoney(value: Dec, currency: string): Dec {
  return roundTo(value, currencyScale(currency));
}

/** `value` rounded to `scale` decimals as a plain string, never "-0.00". */
export function formatAt(value: Dec, scale: number): string {
  const rounded = roundTo(value, scale);
  return (rounded.isZero() ? ZERO : rounded).toFixed(scale);
}

/** A money string with the currency's scale ("150.00", JPY "150", KWD "1.250"). */
export function formatMoney(value: Dec, currency: string): string {
  return formatAt(value, currencyScale(currency));
}

/**
 * A pay rate as the API shows it: its own significant decimals, but at least the currency's
 * ("45" EUR -> "45.00", "45.1250" EUR -> "45.125", "4500" JPY -> "4500").
 */
export function formatRate(text: string, currency: string): string {
  const rate = dec(text);
  return rate.toFixed(Math.max(currencyScale(currency), rate.decimalPlaces()));
}

/** An FX rate as a plain decimal without trailing zeros ("0.9200" -> "0.92"). */
export function formatPlain(text: string): string {
  return dec(text).toFixed();
}

/** Sum of a list of decimals (0 for none). */
export function sum(values: Iterable<Dec>): Dec {
  let total = ZERO;
  for (const v of values) total = total.plus(v);
  return total;
}
