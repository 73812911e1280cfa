import type { Money } from '../../money/money.ts';
import {
  amountOf,
  BASE_CURRENCY,
  CURRENCY_PROFILES,
  percentOf,
  ZERO,
  type Amount,
  type GeneratedCurrency,
} from './amounts.ts';
import { isoDate, isoTimestamp, type Month } from './calendar.ts';
import type { Generation } from './context.ts';
import type { PayeeModel } from './model.ts';
import { REVERSAL_REASONS } from './names.ts';

/** An APPROVED bill as payments see it. */
export interface PayableBill {
  id: string;
  currency: GeneratedCurrency;
  total: Money;
  issueDay: number;
}

interface Allocation {
  billId: string;
  amount: Amount;
}

/** A payment's currency, amount, settlement fields and allocations, as written. */
interface Settlement {
  currency: string;
  amount: string;
  fields: {
    settlementCurrency: string | null;
    settlementAmount: string | null;
    exchangeRate: string | null;
    settlementMode: 'SAME_CURRENCY' | 'CONVERTED';
  };
  allocations: { billId: string; amount: string; cashAmount: string; cashCurrency: string }[];
}

const METHODS = ['BANK_TRANSFER', 'WISE', 'PAYPAL', 'CHECK', 'CASH', 'OTHER'] as const;
const METHOD_WEIGHTS = [60, 20, 10, 3, 2, 5];

/**
 * Pays approved bills. Per bill, by its month's age: paid in full, partly, or not at all
 * (older bills are mostly paid; every 10th is paid partly). A payee's partly paid bill stays
 * open, and the payment of their next bill in the same currency settles it too (two
 * allocations). Every 25th
 * payment is reversed (bounced) and then made again; every 8th single-bill payment of a
 * foreign-currency bill is made in the base currency (settlementMode CONVERTED).
 *
 * Rules kept: allocations go to bills of the same payee, in the bill's currency and scale,
 * at most one per bill and payment, each > 0; in SAME_CURRENCY their sum is the payment
 * amount, in CONVERTED the sum of their cash amounts is.
 */
export class PaymentWriter {
  /** Per payee id: their partly paid bill and what remains of it. */
  private readonly open = new Map<string, { id: string; currency: string; remaining: Money }>();

  constructor(private readonly g: Generation) {}

  async payBill(month: Month, payee: PayeeModel, bill: PayableBill): Promise<void> {
    const rng = this.g.paymentRandom;
    if (!bill.total.greaterThan(0)) return;
    const outcome =
      this.g.nth('approved bill') % 10 === 5
        ? 'PARTIAL'
        : (['FULL', 'PARTIAL', 'NONE'] as const)[rng.weighted(outcomeWeights(month))];
    if (outcome === 'NONE') return;
    const part = percentOf(bill.total, rng.between(20, 80), bill.currency);
    const partial =
      outcome === 'PARTIAL' && part.value.greaterThan(0) && part.value.lessThan(bill.total);
    const allocations: Allocation[] = [
      { billId: bill.id, amount: partial ? part : amountOf(bill.total, bill.currency) },
    ];
    const open = this.open.get(payee.id);
    if (open && open.currency === bill.currency) {
      allocations.unshift({ billId: open.id, amount: amountOf(open.remaining, bill.currency) });
      this.open.delete(payee.id);
    }
    if (partial) {
      const remaining = bill.total.minus(part.value);
      this.open.set(payee.id, { id: bill.id, currency: bill.currency, remaining });
    }

    const today = this.g.today;
    let paidDay = Math.min(today, bill.issueDay + rng.between(3, 20));
    if (this.g.nth('payment') % 25 === 2) {
      const reversedAt = isoTimestamp(Math.min(today, paidDay + 1), 9 * 3600);
      await this.write(payee, bill.currency, allocations, paidDay, {
        reversedAt,
        reason: rng.pick(REVERSAL_REASONS),
      });
      paidDay = Math.min(today, paidDay + 3);
    }
    await this.write(payee, bill.currency, allocations, paidDay, null);
  }

  private async write(
    payee: PayeeModel,
    billCurrency: GeneratedCurrency,
    allocations: Allocation[],
    paidDay: number,
    reversal: { reversedAt: string; reason: string } | null,
  ): Promise<void> {
    const rng = this.g.paymentRandom;
    const method = METHODS[rng.weighted(METHOD_WEIGHTS)] ?? 'OTHER';
    const converted =
      allocations.length === 1 &&
      billCurrency !== BASE_CURRENCY &&
      this.g.nth('foreign payment') % 8 === 3;
    const settlement = converted
      ? convertedSettlement(billCurrency, allocations)
      : sameCurrency(billCurrency, allocations);
    await this.g.record('payment', {
      id: rng.uuid(),
      payeeId: payee.id,
      currency: settlement.currency,
      amount: settlement.amount,
      paidDate: isoDate(paidDay),
      method,
      reference: `${method === 'WISE' ? 'WISE' : 'PAY'}-${rng.between(100_000, 999_999)}`,
      note: rng.chance(0.1) ? 'Thanks for the great work!' : null,
      status: reversal ? 'REVERSED' : 'RECORDED',
      reversedAt: reversal?.reversedAt ?? null,
      reversalReason: reversal?.reason ?? null,
      ...settlement.fields,
      allocations: settlement.allocations,
    });
  }
}

function outcomeWeights(month: Month): number[] {
  if (month.age <= 1) return [40, 20, 40];
  if (month.age === 2) return [70, 15, 15];
  return [90, 5, 5];
}

/** Paid in the bill's currency: the payment amount is the sum of its allocations. */
function sameCurrency(currency: GeneratedCurrency, allocations: Allocation[]): Settlement {
  const sum = allocations.reduce((acc, a) => acc.plus(a.amount.value), ZERO);
  return {
    currency,
    amount: amountOf(sum, currency).text,
    fields: {
      settlementCurrency: null,
      settlementAmount: null,
      exchangeRate: null,
      settlementMode: 'SAME_CURRENCY',
    },
    allocations: allocations.map((a) => ({
      billId: a.billId,
      amount: a.amount.text,
      cashAmount: a.amount.text,
      cashCurrency: currency,
    })),
  };
}

/**
 * Paid in the base currency at the currency's typical rate: the allocation stays in the bill
 * currency, its cash amount (= the payment amount) is in the base currency.
 */
function convertedSettlement(currency: GeneratedCurrency, allocations: Allocation[]): Settlement {
  const [allocation] = allocations;
  const rate = CURRENCY_PROFILES[currency].toEuro;
  if (!allocation) throw new Error('converted payment without allocation');
  const cash = amountOf(allocation.amount.value.times(rate), BASE_CURRENCY);
  if (!cash.value.greaterThan(0)) return sameCurrency(currency, allocations);
  return {
    currency: BASE_CURRENCY,
    amount: cash.text,
    fields: {
      settlementCurrency: currency,
      settlementAmount: allocation.amount.text,
      exchangeRate: rate,
      settlementMode: 'CONVERTED',
    },
    allocations: [
      {
        billId: allocation.billId,
        amount: allocation.amount.text,
        cashAmount: cash.text,
        cashCurrency: BASE_CURRENCY,
      },
    ],
  };
}
