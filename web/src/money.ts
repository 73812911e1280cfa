// Money as the page shows it: formatted from the API's decimal strings, never through a JS
// number. Intl.NumberFormat formats a decimal string exactly (ECMA-402 takes it as a decimal,
// not a double), so "12345678901234567.89" keeps every digit.

/** A decimal string as the API writes money, rates and percentages: "-1234.50", "0", "12". */
const DECIMAL = /^-?\d+(\.\d+)?$/;

const formats = new Map<string, Intl.NumberFormat>();

function numberFormat(key: string, make: () => Intl.NumberFormat): Intl.NumberFormat {
  let format = formats.get(key);
  if (!format) {
    format = make();
    formats.set(key, format);
  }
  return format;
}

/** The currency's minor-unit scale (EUR 2, JPY 0, KWD 3), as the browser's ISO 4217 data says. */
export function currencyScale(currency: string): number {
  return numberFormat(`scale:${currency}`, () =>
    currency3(currency)
      ? new Intl.NumberFormat('en', { style: 'currency', currency })
      : new Intl.NumberFormat('en'),
  ).resolvedOptions().maximumFractionDigits!;
}

const currency3 = (code: string) => /^[A-Z]{3}$/.test(code);

/** Decimals a decimal string has. */
const decimalsOf = (text: string) => text.split('.')[1]?.length ?? 0;

/**
 * An amount in `currency`, with its symbol, at the currency's scale, or with more decimals when
 * the string has them (a rate of 45.125). Anything that is not a decimal string is shown as it is:
 * the page never makes up a figure.
 */
export function formatMoney(amount: string, currency: string, locale?: string): string {
  if (!DECIMAL.test(amount) || !currency3(currency)) return `${amount} ${currency}`.trim();
  const scale = Math.max(currencyScale(currency), decimalsOf(amount));
  const format = numberFormat(
    `money:${locale ?? ''}:${currency}:${scale}`,
    () =>
      new Intl.NumberFormat(locale, {
        style: 'currency',
        currency,
        minimumFractionDigits: scale,
        maximumFractionDigits: scale,
      }),
  );
  return format.format(amount as Intl.StringNumericLiteral);
}

/** A percentage the API writes as a decimal string ("12.50"), exactly, with its decimals. */
export function formatPercent(value: string | null, locale?: string): string {
  if (value === null) return '–';
  if (!DECIMAL.test(value)) return value;
  const scale = decimalsOf(value);
  const format = numberFormat(
    `percent:${locale ?? ''}:${scale}`,
    () =>
      new Intl.NumberFormat(locale, {
        minimumFractionDigits: scale,
        maximumFractionDigits: scale,
      }),
  );
  return `${format.format(value as Intl.StringNumericLiteral)} %`;
}

/** Seconds of work as hours and minutes: 5400 -> "1 h 30 min". */
export function formatDuration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours === 0 ? `${rest} min` : rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/**
 * A decimal string as a number for a chart's geometry only (bar heights, a line's points): the
 * text beside a chart is always formatMoney of the string.
 */
export function plotValue(amount: string | null): number | null {
  return amount !== null && DECIMAL.test(amount) ? Number(amount) : null;
}

/** Whether a decimal string is zero ("0", "0.00", "-0.000"). */
export function isZero(amount: string): boolean {
  return /^-?0+(\.0+)?$/.test(amount);
}
