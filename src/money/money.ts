import { Decimal } from 'decimal.js';
import { currencyScale } from './currencies.ts';

/** decimal.js configured for money: enough precision for any sum we make, half away from zero. */
export const Money = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_UP,
  toExpPos: 60,
  toExpNeg: -60,
});
export type Money = Decimal;

/** Storage keeps four decimals (NUMERIC(18,4)); rates and tax rates may use all four. */
export const RATE_SCALE = 4;
const MAX_INTEGER_DIGITS = 14;

// Plain decimal notation only: no exponent, no leading '+', no blanks, no NaN or Infinity.
const DECIMAL_TEXT = /^-?(\d+)(?:\.(\d+))?$/;

export type ParseResult = { ok: true; value: Money } | { ok: false; reason: string };

/**
 * Parses a money or rate written as a decimal string, refusing anything that is not plain
 * decimal notation or has more decimals than `maxScale`. Never rounds: a value that does not
 * fit is an error, never a silently different amount.
 */
export function parseDecimal(text: string, maxScale: number): ParseResult {
  const reason = decimalTextProblem(text, maxScale);
  return reason === undefined ? { ok: true, value: new Money(text) } : { ok: false, reason };
}

/**
 * Why `text` is not a decimal with at most `maxScale` decimals, or undefined when it is.
 * The same rule as parseDecimal without making a Decimal, for validating millions of rows.
 */
export function decimalTextProblem(text: string, maxScale: number): string | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return 'must be a decimal number such as "150.50"';
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > maxScale) return `must have at most ${maxScale} decimal places`;
  if (whole.replace(/^0+/, '').length > MAX_INTEGER_DIGITS) return 'is too large';
  return undefined;
}

/** The sign of a decimal string already known to be valid: -1, 0 or 1. */
export function decimalTextSign(text: string): -1 | 0 | 1 {
  if (!/[1-9]/.test(text)) return 0;
  return text.startsWith('-') ? -1 : 1;
}

/** Parses an amount in a currency: at most the currency's minor-unit digits. */
export function parseAmount(text: string, currency: string): ParseResult {
  const scale = currencyScale(currency);
  if (scale === undefined) return { ok: false, reason: `has unknown currency ${currency}` };
  return parseDecimal(text, scale);
}

/** Rounds half away from zero to `scale` digits and prints exactly that many. */
export function formatDecimal(value: Money | string, scale: number): string {
  if (typeof value === 'string') {
    const plain = formatWithoutRounding(value, scale);
    if (plain !== undefined) return plain;
  }
  const d = typeof value === 'string' ? new Money(value) : value;
  const rounded = d.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
  // decimal.js keeps a negative zero sign through rounding; money never shows "-0.00".
  return (rounded.isZero() ? new Money(0) : rounded).toFixed(scale);
}

/** 10^(4 - scale): how many 10^-4 units one digit at `scale` (0..4) holds. */
const E4_STEP = [10000n, 1000n, 100n, 10n, 1n];

/**
 * A count of 10^-4 units (a sum read from DuckDB as an integer) printed at `scale` digits,
 * rounded half away from zero: the same text as formatDecimal of the decimal it stands for,
 * with BigInt arithmetic only. A report prints thousands of such sums, and nearly every one has
 * digits past its currency's scale, which formatDecimal would hand to decimal.js.
 */
export function formatE4(e4: bigint, scale: number): string {
  const step = E4_STEP[scale];
  if (step === undefined) throw new RangeError(`scale must be an integer 0..4, not ${scale}`);
  const negative = e4 < 0n;
  const magnitude = negative ? -e4 : e4;
  // Half away from zero on the magnitude; the sign goes back on afterwards.
  const units = (2n * magnitude + step) / (2n * step);
  const digits = units.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  // Money never shows "-0.00": a value that rounds to zero loses its sign.
  const sign = negative && units !== 0n ? '-' : '';
  return scale === 0 ? `${sign}${whole}` : `${sign}${whole}.${digits.slice(-scale)}`;
}

/**
 * A plain decimal's text as DuckDB prints it ("-12.3400") as its integer count of 10^-`scale`
 * units, exactly (a DECIMAL(38,4) as e4 with scale 4): the inverse of formatE4 at scale 4.
 */
export function decimalUnits(text: string, scale: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`Not a decimal: ${text}`);
  const [, minus, whole = '', fraction = ''] = match;
  if (fraction.length > scale) throw new Error(`More than ${scale} decimals: ${text}`);
  const units = BigInt(whole + fraction.padEnd(scale, '0'));
  return minus ? -units : units;
}

/** Formats an amount with its currency's scale ("150.00", JPY "150", KWD "1.500"). */
export function formatAmount(value: Money | string, currency: string): string {
  return formatDecimal(value, currencyScale(currency) ?? 2);
}

const PLAIN_DECIMAL = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?$/;

/**
 * The text of a plain decimal (DuckDB's "-12.3400") at `scale` when that needs no rounding
 * (every digit past the scale is 0), by cutting and padding digits: the same text as
 * formatDecimal's, without building a Decimal. A report formats thousands of already rounded
 * sums. Undefined when rounding, or another form of number, needs decimal.js.
 */
function formatWithoutRounding(text: string, scale: number): string | undefined {
  const match = PLAIN_DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  if (/[1-9]/.test(fraction.slice(scale))) return undefined;
  const digits = fraction.slice(0, scale).padEnd(scale, '0');
  // Money never shows "-0.00".
  const zero = whole === '0' && !/[1-9]/.test(digits);
  return `${zero ? '' : sign}${whole}${scale > 0 ? `.${digits}` : ''}`;
}

/**
 * part x 100 / whole of two counts of 10^-4 units (whole <> 0), rounded half away from zero to
 * two decimals ("-12.50"): a margin percent.
 */
export function percentE4(part: bigint, whole: bigint): string {
  const n = part * 10000n;
  const negative = n < 0n !== whole < 0n;
  const a = n < 0n ? -n : n;
  const b = whole < 0n ? -whole : whole;
  const hundredths = (2n * a + b) / (2n * b);
  return formatE4((negative ? -hundredths : hundredths) * 100n, 2);
}
