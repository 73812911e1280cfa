import { currencyScale } from '../money/currencies.ts';
import { formatAmount, formatDecimal, Money, RATE_SCALE } from '../money/money.ts';

// Column values as both stores hand them over (PostgreSQL through pg, DuckDB with DECIMAL and
// DATE columns cast to text): text, Date for timestamps, 'YYYY-MM-DD' for dates, decimal text
// for NUMERIC. One set of readers turns them into API values for every record.

export function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  throw new Error(`Expected text, got ${typeof value}`);
}

/** A timestamp as ISO 8601 UTC. */
export function timestamp(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  throw new Error(`Expected a timestamp, got ${typeof value}`);
}

/** An amount with its currency's scale ("150.00", JPY "150"). */
export function money(value: unknown, currency: string): string | null {
  const t = text(value);
  return t === null ? null : formatAmount(t, currency);
}

/**
 * A rate (hourly rate, default rate): the currency's scale, with up to four decimals kept
 * when they are not zeros ("150.00", "150.1250" -> "150.125").
 */
export function rate(value: unknown, currency: string): string | null {
  const t = text(value);
  if (t === null) return null;
  const scale = currencyScale(currency) ?? 2;
  const significant = new Money(t).decimalPlaces();
  return formatDecimal(t, Math.min(RATE_SCALE, Math.max(scale, significant)));
}

/** A plain decimal (hours, tax rate) without trailing zeros ("19.0000" -> "19", "1.5000" -> "1.5"). */
export function decimal(value: unknown): string | null {
  const t = text(value);
  return t === null ? null : new Money(t).toFixed();
}

export function integer(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new Error('Expected an integer');
  return n;
}

export function bool(value: unknown): boolean {
  if (typeof value !== 'boolean') throw new Error(`Expected a boolean, got ${typeof value}`);
  return value;
}

export function strings(value: unknown): string[] {
  if (!Array.isArray(value)) throw new Error('Expected a list');
  return value.map((v) => {
    const t = text(v);
    if (t === null) throw new Error('Expected a list without nulls');
    return t;
  });
}
