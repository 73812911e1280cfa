import { z } from 'zod';
import { canManagePayouts, OWNER_ADMIN } from '../../api/access.ts';
import {
  strictQuerySchema,
  type AnswerReads,
  type RoutePlugin,
  readResponses,
} from '../../api/route-schema.ts';
import { documentAs } from '../../schema-doc.ts';
import { singleResponse } from '../../api/schema-parts.ts';
import { answersAsTable } from '../../api/table-answer.ts';
import { isKnownCurrency } from '../../money/currencies.ts';
import { todayIn } from '../../time/calendar.ts';
import { loadPayoutSummary } from './payout-summary.query.ts';
import { payoutSummarySchema } from './payout-summary.schema.ts';
/**
 * What the summary reads (config.answers): team_bill_figures and payee_unpaid_totals by their
 * sources.
 */
const SUMMARY_READS: AnswerReads = {
  reads: [
    'payee_credits',
    'payee_rates',
    'payees',
    'team_bill_lines',
    'team_bills',
    'team_payment_allocations',
    'team_payments',
    'time_entries',
  ],
};

/**
 * The one parameter, strict (docs/contract.md, "Team payout queries"): a currency of ISO 4217, in
 * any case.
 */
const payoutSummaryQuery = strictQuerySchema(
  z.object({
    currency: documentAs(
      z
        .string()
        .transform((v) => v.toUpperCase())
        .refine(isKnownCurrency, 'must be an ISO 4217 currency code'),
      { type: 'string', pattern: '^[A-Za-z]{3}$' },
    ).optional(),
  }),
);

/**
 * GET /team-payouts/summary (docs/contract.md, "Team payout endpoints"): Owner/Admin with read
 * scope, Agency plan.
 */
export const payoutSummaryRoutes: RoutePlugin = async (app, { context }) => {
  app.get(
    '/team-payouts/summary',
    {
      config: {
        access: {
          roles: OWNER_ADMIN,
          scope: 'read',
          feature: { plan: 'agency', name: 'team_payouts' },
        },
        answers: SUMMARY_READS,
      },
      schema: {
        summary: 'Team payout summary per currency',
        description: 'Who may call: Owner, Admin; read scope; Agency plan.',
        querystring: payoutSummaryQuery,
        response: readResponses(
          { 200: answersAsTable(singleResponse(payoutSummarySchema), ['data', 'currencies']) },
          { 422: ['validation_failed', 'invalid_query'], 503: ['read_model_unavailable'] },
        ),
      },
    },
    async (request) => {
      const caller = request.caller;
      const { currency } = request.query;
      const data = await context.read((connection) =>
        loadPayoutSummary(connection, {
          workspaceId: caller.workspaceId,
          ...(currency === undefined ? {} : { currency }),
          today: todayIn(caller.timezone),
          canManage: canManagePayouts(caller),
        }),
      );
      return { data };
    },
  );
};
