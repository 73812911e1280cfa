import { currencyScale } from '../../money/currencies.ts';
import { formatAmount, formatDecimal, Money } from '../../money/money.ts';

/**
 * Money for the generator, through decimal.js (`Money`) or exact bigint minor units, never a
 * JS number. Amounts are rounded half away from zero to the currency's minor unit
 * (docs/contract.md, "Money and rounding").
 */

export const BASE_CURRENCY = 'EUR';

/**
 * The currencies a generated workspace uses: how many units make one euro (to scale
 * prices) and the typical rate into euro (for fxRates and converted payments). KWD has
 * three decimals and JPY none, so both minor-unit edge cases are always present.
 */
export const CURRENCY_PROFILES = {
  EUR: { perEuro: '1', toEuro: '1' },
  USD: { perEuro: '1.08', toEuro: '0.9250' },
  GBP: { perEuro: '0.86', toEuro: '1.1650' },
  JPY: { perEuro: '162', toEuro: '0.0062' },
  KWD: { perEuro: '0.332', toEuro: '3.0120' },
} as const;
export type GeneratedCurrency = keyof typeof CURRENCY_PROFILES;
export const FOREIGN_CURRENCIES: readonly GeneratedCurrency[] = ['USD', 'GBP', 'JPY', 'KWD'];

/** An amount rounded to its currency: as written, as a decimal, and in minor units. */
export interface Amount {
  text: string;
  value: Money;
  minor: bigint;
}

export const ZERO = new Money(0);

/** Rounds half away from zero to the currency's minor unit. */
export function amountOf(value: Money, currency: string): Amount {
  const text = formatAmount(value, currency);
  // The text has exactly the currency's decimals, so without the point it is minor units.
  return { text, value: new Money(text), minor: BigInt(text.replace('.', '')) };
}

/**
 * Sums amounts of one currency exactly as integer minor units (bigint): the invoice and
 * bill subtotals add up millions of lines, where decimal.js would be the slow part.
 */
export class AmountSum {
  private minor = 0n;
  private readonly unit: Money;

  constructor(currency: string) {
    this.unit = new Money(10).pow(-(currencyScale(currency) ?? 2));
  }

  add(amount: Amount): void {
    this.minor += amount.minor;
  }

  get value(): Money {
    return new Money(this.minor.toString()).times(this.unit);
  }
}

/** A price given in euro, in `currency` at its scale ("120" EUR -> "19440" JPY). */
export function priceIn(euro: number | string, currency: GeneratedCurrency): Amount {
  return amountOf(new Money(euro).times(CURRENCY_PROFILES[currency].perEuro), currency);
}

/**
 * An hourly rate given in euro, in `currency`, written with two decimals: rounded to the
 * currency first so that a JPY rate is whole yen ("19440.00") and a KWD rate fits fils.
 */
export function hourlyRateIn(euro: number | string, currency: GeneratedCurrency): string {
  const scale = Math.min(2, currencyScale(currency) ?? 2);
  return formatDecimal(
    new Money(euro).times(CURRENCY_PROFILES[currency].perEuro).toDecimalPlaces(scale),
    2,
  );
}

/** `percent` percent of an amount, rounded to the currency. */
export function percentOf(amount: Money, percent: number | string, currency: string): Amount {
  return amountOf(amount.times(percent).div(100), currency);
}

// Only durations in whole five minutes up to 36 h are memoized (nearly all of them); exact
// timer seconds are computed each time. The memo is emptied when it reaches MEMO_LIMIT
// charges (~20 MB): pay rates are many (each payee has their own), but a payee's month of
// bill lines uses one or two of them, so a fresh memo refills quickly.
const MEMO_STEP = 300;
const MEMO_SLOTS = 432;
const MEMO_LIMIT = 50_000;

/** The charge for a duration at an hourly rate, with the JSON fields of a line showing it. */
export interface TimeCharge {
  /** durationSeconds x hourlyRate / 3600, rounded half away from zero to the rate's currency. */
  amount: Amount;
  /** `"quantity":"1.5","unitPrice":"120.00","amount":"180.00"` (an invoice TIME line). */
  invoiceFields: string;
  /** `"durationSeconds":5400,"hourlyRate":"120.00",` and the invoice fields (a bill TIME line). */
  billFields: string;
}

/**
 * Hourly rates in use (project rates for invoices, payee rates for bills), interned to small
 * integer keys so that the charge of a (rate, duration) pair is computed once: durations
 * repeat (quarter hours), and decimal.js and string building are the slow part of
 * generating millions of lines.
 */
export class RateBook {
  private readonly rates: { text: string; hourlyRate: Money; currency: string }[] = [];
  private readonly keys = new Map<string, number>();
  private readonly charges = new Map<number, TimeCharge>();

  /** Key of an hourly rate (decimal string) in a currency. */
  intern(hourlyRate: string, currency: string): number {
    const name = `${hourlyRate} ${currency}`;
    let key = this.keys.get(name);
    if (key === undefined) {
      key = this.rates.length;
      this.rates.push({ text: hourlyRate, hourlyRate: new Money(hourlyRate), currency });
      this.keys.set(name, key);
    }
    return key;
  }

  currency(rateKey: number): string {
    return this.rate(rateKey).currency;
  }

  charge(rateKey: number, seconds: number): TimeCharge {
    const step = seconds / MEMO_STEP;
    if (!Number.isInteger(step) || step >= MEMO_SLOTS) return this.computeCharge(rateKey, seconds);
    const memoKey = rateKey * MEMO_SLOTS + step;
    let charge = this.charges.get(memoKey);
    if (charge === undefined) {
      if (this.charges.size >= MEMO_LIMIT) this.charges.clear();
      charge = this.computeCharge(rateKey, seconds);
      this.charges.set(memoKey, charge);
    }
    return charge;
  }

  private computeCharge(rateKey: number, seconds: number): TimeCharge {
    const rate = this.rate(rateKey);
    const amount = amountOf(rate.hourlyRate.times(seconds).div(3600), rate.currency);
    const invoiceFields = `"quantity":"${hours(seconds)}","unitPrice":"${rate.text}","amount":"${amount.text}"`;
    const billFields = `"durationSeconds":${seconds},"hourlyRate":"${rate.text}",${invoiceFields}`;
    return { amount, invoiceFields, billFields };
  }

  private rate(rateKey: number): { text: string; hourlyRate: Money; currency: string } {
    const rate = this.rates[rateKey];
    if (rate === undefined) throw new Error(`unknown rate key ${rateKey}`);
    return rate;
  }
}

/** Hours of a duration with at most four decimals, as a line quantity ("1.5", "0.3333"). */
function hours(seconds: number): string {
  return new Money(seconds).div(3600).toDecimalPlaces(4).toString();
}
