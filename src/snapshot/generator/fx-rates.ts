import { Money } from '../../money/money.ts';
import {
  BASE_CURRENCY,
  CURRENCY_PROFILES,
  FOREIGN_CURRENCIES,
  type GeneratedCurrency,
} from './amounts.ts';
import { addMonths, isoDate } from './calendar.ts';
import type { Generation } from './context.ts';
import type { WorkspaceModel } from './model.ts';

// Rates exist only from this month of the range on for the "late" currency, so amounts
// dated earlier have no rate at all (missingFx in reports).
const LATE_CURRENCY_FIRST_MONTH = 6;

/** Every non-base currency the workspace uses (clients, pay rates), in a fixed order. */
export function usedForeignCurrencies(model: WorkspaceModel): GeneratedCurrency[] {
  const used = new Set<GeneratedCurrency>();
  for (const client of model.clients) used.add(client.currency);
  for (const payee of model.payees) for (const rate of payee.rates) used.add(rate.currency);
  return FOREIGN_CURRENCIES.filter((c) => used.has(c));
}

/**
 * Monthly rates (effective on the first) from each used foreign currency to the base
 * currency, from the month before the range to today's month. Every seventh month is missing
 * (the previous rate then applies), and the late currency (KWD when used, else the last
 * used one) has no rate before the range's seventh month. Rates have four decimals and
 * wander within 3% of the currency's typical rate.
 */
export async function writeFxRates(g: Generation, model: WorkspaceModel): Promise<void> {
  const rng = g.setupRandom;
  const currencies = usedForeignCurrencies(model);
  const late = currencies.includes('KWD') ? 'KWD' : currencies.at(-1);
  const monthCount = g.settings.months.length;
  for (const currency of currencies) {
    const firstMonth = currency === late ? LATE_CURRENCY_FIRST_MONTH : -1;
    for (let month = firstMonth; month < monthCount; month++) {
      if (month > firstMonth && g.nth('fx month') % 7 === 3) continue;
      const drift = new Money(10_000 + rng.between(-300, 300)).div(10_000);
      const rate = new Money(CURRENCY_PROFILES[currency].toEuro).times(drift).toDecimalPlaces(4);
      await g.record('fxRate', {
        id: rng.uuid(),
        fromCurrency: currency,
        toCurrency: BASE_CURRENCY,
        effectiveFrom: isoDate(addMonths(g.rangeStart, month)),
        rate: rate.toFixed(4),
      });
    }
  }
}
