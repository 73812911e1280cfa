import { z } from 'zod';

// Money is a decimal string with exactly the currency's scale ("150.00", JPY "150",
// KWD "1.500"); never a JSON number (api-v1 conventions, decisions 9).
const money = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string');
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code');
const count = z.int().nonnegative();

/** One currency of the team payout summary (decisions 7, "Summary per currency"). */
export const payoutSummaryCurrencySchema = z.object({
  currency: currencyCode,
  eligibleSeconds: count,
  /** First and last work date of the default-scope unpaid items; null when there are none. */
  unbilledFrom: z.iso.date().nullable(),
  unbilledTo: z.iso.date().nullable(),
  accrued: money,
  approved: money,
  paid: money,
  outstanding: money,
  overdue: money,
  credit: money,
});

/** `data` of GET /team-payouts/summary (api-v1 "Team payout summary", decisions 7). */
export const payoutSummarySchema = z.object({
  canManage: z.boolean(),
  /** Sorted by currency code. */
  currencies: z.array(payoutSummaryCurrencySchema),
  missingRateCount: count,
  eligibleSeconds: count,
  memberCount: count,
  /** The latest RECORDED payment; all three null when there is none. */
  lastPaymentDate: z.iso.date().nullable(),
  lastPaymentAmount: money.nullable(),
  lastPaymentCurrency: currencyCode.nullable(),
});

export type PayoutSummaryCurrency = z.infer<typeof payoutSummaryCurrencySchema>;
export type PayoutSummary = z.infer<typeof payoutSummarySchema>;
