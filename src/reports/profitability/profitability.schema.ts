import { z } from 'zod';
import { documentAs } from '../../schema-doc.ts';
import { currencyCode, isoDate, moneyText as money, uuid } from '../../value-schemas.ts';

// Money is a decimal string with exactly the currency's scale ("150.00", JPY "150",
// KWD "1.500"); never a JSON number (docs/contract.md, "Money and rounding").
const count = z.int().nonnegative();

/** The metric names, in the order every list of them follows (docs/contract.md, "Value sets"). */
export const PROFITABILITY_METRICS = [
  'billedNet',
  'collectedNet',
  'compensationCost',
  'approvedCost',
  'estimatedCost',
  'paid',
  'pending',
] as const;
export const profitabilityMetric = z.enum(PROFITABILITY_METRICS);
/** The metrics an amount is counted in; the other two are derived from them. */
export const primaryMetric = z.enum([
  'billedNet',
  'collectedNet',
  'approvedCost',
  'estimatedCost',
  'paid',
]);

/**
 * Where a row leads in the app (docs/contract.md, "Links object"): app-relative URLs, '' when not
 * applicable (docs/decisions.md, "Profitability").
 */
export const profitabilityLinks = z.object({
  app: z.string(),
  payee: z.string(),
  project: z.string(),
  task: z.string(),
});

/**
 * One metrics row: the summary, a member or a member's project
 * (docs/contract.md, "Rows, summary and paging").
 */
export const profitabilityRowSchema = z.object({
  userId: uuid.nullable(),
  payeeId: uuid.nullable(),
  name: z.string().nullable(),
  projectId: uuid.nullable(),
  projectName: z.string().nullable(),
  billedNet: money,
  collectedNet: money,
  compensationCost: money,
  approvedCost: money,
  estimatedCost: money,
  paid: money,
  pending: money,
  margin: money,
  /** margin x 100 / billedNet with two decimals; null when billedNet is 0. */
  marginPercent: money.nullable(),
  clientUnbilledSeconds: count,
  missingFx: z.boolean(),
  missingPayRate: z.boolean(),
  missingMetrics: z.array(profitabilityMetric),
  /** Unconverted sums per metric and currency, zero sums left out. */
  nativeAmounts: z.array(
    z.object({ currency: currencyCode, metric: profitabilityMetric, amount: money }),
  ),
  links: profitabilityLinks,
});

/** A member's row; both project fields are left out of the answer to `projects=none`. */
export const profitabilityMemberSchema = profitabilityRowSchema.extend({
  projectCount: count.optional(),
  projects: z.array(profitabilityRowSchema).optional(),
});

const nativeSum = z.object({ currency: currencyCode, amount: money });

/**
 * `data` of GET /team-payouts/profitability (docs/contract.md, "Team profitability" and
 * "Profitability").
 */
export const profitabilitySchema = z.object({
  from: isoDate,
  to: isoDate,
  view: z.literal('work'),
  baseCurrency: currencyCode,
  page: z.int().positive(),
  perPage: z.int().min(1).max(100),
  memberTotal: count,
  missingRateCount: count,
  summary: profitabilityRowSchema,
  members: z.array(profitabilityMemberSchema),
  unallocatedRevenue: z.array(nativeSum),
  unreconciledReceipts: z.array(nativeSum),
  missingFx: z.array(
    z.object({
      fromCurrency: currencyCode,
      toCurrency: currencyCode,
      amount: money,
      metric: primaryMetric,
    }),
  ),
  fxRates: z.array(
    z.object({
      id: uuid,
      fromCurrency: currencyCode,
      toCurrency: currencyCode,
      effectiveFrom: isoDate,
      createdAt: z.iso.datetime(),
      used: z.boolean(),
      /** The rate as given, without trailing zeros ("0.92"). */
      rate: z.string(),
    }),
  ),
});

export type ProfitabilityRow = z.infer<typeof profitabilityRowSchema>;
export type ProfitabilityMember = z.infer<typeof profitabilityMemberSchema>;
export type Profitability = z.infer<typeof profitabilitySchema>;

// strictQuery has refused repeated parameters already: each value here is one string.
// Any 8-4-4-4-12 hex id, as the importer accepts (not only RFC 4122 versions).
const id = z.guid({ error: 'must be a UUID' }).transform((v) => v.toLowerCase());
const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return documentAs(
    z
      .string()
      .regex(/^\d{1,9}$/, message)
      .transform(Number)
      .pipe(z.number().min(min, message).max(max, message)),
    { type: 'integer', minimum: min, maximum: max },
  );
};

/**
 * The query of GET /team-payouts/profitability, after strictQuery has refused unknown and
 * repeated parameters. `from` and `to` default to the current month in the workspace's time
 * zone, `page` to 1, `perPage` to 25; `view` takes `work` only (docs/contract.md, "Value sets").
 */
export const profitabilityQuery = z.object({
  from: isoDate.optional(),
  to: isoDate.optional(),
  userId: id.optional(),
  projectId: id.optional(),
  clientId: id.optional(),
  view: z.enum(['work'], { error: 'must be work' }).optional(),
  page: wholeNumber(1, 999_999_999).optional(),
  perPage: wholeNumber(1, 100).optional(),
  projects: z.enum(['all', 'none'], { error: 'must be all or none' }).optional(),
});
export type ProfitabilityQuery = z.output<typeof profitabilityQuery>;

/** `data` of GET /team-payouts/profitability/series (docs/api.md, "Profitability series"). */
export const profitabilitySeriesSchema = z.object({
  from: isoDate,
  to: isoDate,
  interval: z.enum(['month', 'week']),
  baseCurrency: currencyCode,
  points: z.array(
    profitabilityRowSchema
      .omit({
        userId: true,
        payeeId: true,
        name: true,
        projectId: true,
        projectName: true,
        nativeAmounts: true,
        links: true,
      })
      .extend({ from: isoDate, to: isoDate }),
  ),
});

/**
 * The query of GET /team-payouts/profitability/series: the report's filters, `interval` month
 * (default) or week; `to` defaults to the end of the current month, `from` to the first day of
 * the eleventh month before `to`'s.
 */
export const profitabilitySeriesQuery = z.object({
  from: isoDate.optional(),
  to: isoDate.optional(),
  userId: id.optional(),
  projectId: id.optional(),
  clientId: id.optional(),
  interval: z.enum(['month', 'week'], { error: 'must be month or week' }).optional(),
});
