import { z } from 'zod';
import { currencyCode, isoDate, moneyText as money } from '../../value-schemas.ts';

// Money is a decimal string with exactly the currency's scale ("150.00", JPY "150",
// KWD "1.500"); never a JSON number (docs/contract.md, "Money and rounding").
const count = z.int().nonnegative();

/** One currency of the team payout summary (docs/contract.md, "Summary per currency"). */
export const payoutSummaryCurrencySchema = z.object({
  currency: currencyCode,
  eligibleSeconds: count,
  /** First and last work date of the default-scope unpaid items; null when there are none. */
  unbilledFrom: isoDate.nullable(),
  unbilledTo: isoDate.nullable(),
  accrued: money,
  approved: money,
  paid: money,
  outstanding: money,
  overdue: money,
  credit: money,
});

/** `data` of GET /team-payouts/summary (docs/contract.md, "Team payout summary"). */
export const payoutSummarySchema = z.object({
  canManage: z.boolean(),
  /** Sorted by currency code. */
  currencies: z.array(payoutSummaryCurrencySchema),
  missingRateCount: count,
  eligibleSeconds: count,
  memberCount: count,
  /** The latest RECORDED payment; all three null when there is none. */
  lastPaymentDate: isoDate.nullable(),
  lastPaymentAmount: money.nullable(),
  lastPaymentCurrency: currencyCode.nullable(),
});

export type PayoutSummaryCurrency = z.infer<typeof payoutSummaryCurrencySchema>;
export type PayoutSummary = z.infer<typeof payoutSummarySchema>;
