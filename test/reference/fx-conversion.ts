import { type Dec, dec, roundMoney } from './reference-money.ts';
import { compareText, isLive, type FxRateInput, type SnapshotInput } from './reference-snapshot.ts';

/**
 * docs/contract.md, "FX conversion": an amount in currency C dated D converts to the base currency
 * with the live C->base rate of the latest `effectiveFrom` <= D; only that direction, no inverse,
 * no triangulation. The product is exact and then rounded half away from zero to the base
 * currency. Remembers which rates it used.
 */
export class FxConverter {
  readonly used = new Set<string>();
  private readonly ratesFrom = new Map<string, FxRateInput[]>();

  constructor(
    snapshot: SnapshotInput,
    readonly baseCurrency: string,
  ) {
    for (const rate of snapshot.fxRates ?? []) {
      if (!isLive(rate) || rate.toCurrency !== baseCurrency) continue;
      this.ratesFrom.set(rate.fromCurrency, [
        ...(this.ratesFrom.get(rate.fromCurrency) ?? []),
        rate,
      ]);
    }
  }

  /** The amount in the base currency, or undefined when no rate applies. */
  toBase(amount: Dec, currency: string, date: string | null): Dec | undefined {
    if (currency === this.baseCurrency) return amount;
    if (date === null) return undefined;
    let best: FxRateInput | undefined;
    for (const rate of this.ratesFrom.get(currency) ?? []) {
      if (rate.effectiveFrom > date) continue;
      if (
        best === undefined ||
        rate.effectiveFrom > best.effectiveFrom ||
        (rate.effectiveFrom === best.effectiveFrom && compareText(rate.id, best.id) > 0)
      ) {
        best = rate;
      }
    }
    if (best === undefined) return undefined;
    this.used.add(best.id);
    return roundMoney(amount.times(dec(best.rate)), this.baseCurrency);
  }
}
