import { currencyScale } from '../../money/currencies.ts';
import { formatAmount, formatDecimal, Money } from '../../money/money.ts';

/**
 * Money for the generator, all through decimal.js (`Money`): never a JS number. Amounts are
 * rounded half away from zero to the currency's minor unit (decisions 9).
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

export interface Amount {
  text: string;
  value: Money;
}

export const ZERO = new Money(0);

export function amountOf(value: Money, currency: string): Amount {
  const text = formatAmount(value, currency);
  return { text, value: new Money(text) };
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
  return formatDecimal(new Money(euro).times(CURRENCY_PROFILES[currency].perEuro).toDecimalPlaces(scale), 2);
}

/** `percent` percent of an amount, rounded to the currency. */
export function percentOf(amount: Money, percent: number | string, currency: string): Amount {
  return amountOf(amount.times(percent).div(100), currency);
}

// The memo tables below are cleared when they grow past this, so memory stays flat.
const MEMO_LIMIT = 200_000;
// Seconds are below 2^17 (36 h); a key packs the rate key above them.
const SECONDS_LIMIT = 1 << 17;

/**
 * Hourly rates in use (project rates for invoices, payee rates for bills), interned to small
 * integer keys so that the amount of a (rate, duration) pair is computed once: durations
 * repeat (quarter hours), and decimal.js is the slow part of generating millions of lines.
 */
export class RateBook {
  private readonly rates: { text: string; hourlyRate: Money; currency: string }[] = [];
  private readonly keys = new Map<string, number>();
  private readonly amounts = new Map<number, Amount>();
  private readonly quantities = new Map<number, string>();

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

  /** The hourly rate of a key as written ("45.00"). */
  hourlyRate(rateKey: number): string {
    return this.rate(rateKey).text;
  }

  currency(rateKey: number): string {
    return this.rate(rateKey).currency;
  }

  /** durationSeconds x hourlyRate / 3600, rounded half away from zero to the rate's currency. */
  timeAmount(rateKey: number, seconds: number): Amount {
    if (seconds >= SECONDS_LIMIT) return this.computeTimeAmount(rateKey, seconds);
    const memoKey = rateKey * SECONDS_LIMIT + seconds;
    let amount = this.amounts.get(memoKey);
    if (amount === undefined) {
      if (this.amounts.size >= MEMO_LIMIT) this.amounts.clear();
      amount = this.computeTimeAmount(rateKey, seconds);
      this.amounts.set(memoKey, amount);
    }
    return amount;
  }

  /** Hours of a duration with at most four decimals, as a line quantity ("1.5", "0.3333"). */
  hours(seconds: number): string {
    let text = this.quantities.get(seconds);
    if (text === undefined) {
      if (this.quantities.size >= MEMO_LIMIT) this.quantities.clear();
      text = new Money(seconds).div(3600).toDecimalPlaces(4).toString();
      this.quantities.set(seconds, text);
    }
    return text;
  }

  private computeTimeAmount(rateKey: number, seconds: number): Amount {
    const rate = this.rate(rateKey);
    return amountOf(rate.hourlyRate.times(seconds).div(3600), rate.currency);
  }

  private rate(rateKey: number): { text: string; hourlyRate: Money; currency: string } {
    const rate = this.rates[rateKey];
    if (rate === undefined) throw new Error(`unknown rate key ${rateKey}`);
    return rate;
  }
}
