import { OWNER_ADMIN } from '../../api/access.ts';
import { validationFailed } from '../../api/errors.ts';
import {
  strictQuerySchema,
  type AnswerReads,
  type RoutePlugin,
  readResponses,
} from '../../api/route-schema.ts';
import { singleResponse } from '../../api/schema-parts.ts';
import { answersAsTable } from '../../api/table-answer.ts';
import { todayIn } from '../../time/calendar.ts';
import { bucketsOf, loadProfitability, readSeries, SERIES_POINTS } from './profitability.query.ts';
import { monthOf, monthsBefore } from './profitability.range.ts';
import {
  profitabilityQuery,
  profitabilitySchema,
  profitabilitySeriesQuery,
  profitabilitySeriesSchema,
} from './profitability.schema.ts';
/**
 * What the report reads (config.answers): the priced facts, their rollups and the invoices'
 * unallocated nets by their sources; names of people, projects and clients.
 */
const PROFITABILITY_READS: AnswerReads = {
  reads: [
    'clients',
    'fx_rates',
    'invoice_lines',
    'invoices',
    'payee_rates',
    'payees',
    'projects',
    'team_bill_lines',
    'team_bills',
    'team_payment_allocations',
    'team_payments',
    'time_entries',
    'users',
    'workspaces',
  ],
};

const DEFAULT_PER_PAGE = 25;

const ACCESS = {
  roles: OWNER_ADMIN,
  scope: 'read',
  feature: { plan: 'agency', name: 'team_payouts' },
} as const;

/**
 * GET /team-payouts/profitability (docs/contract.md, "Team payout endpoints"): Owner/Admin with
 * read scope, Agency plan.
 */
export const profitabilityRoutes: RoutePlugin = async (app, { context }) => {
  app.get(
    '/team-payouts/profitability',
    {
      config: {
        access: ACCESS,
        answers: PROFITABILITY_READS,
      },
      schema: {
        summary:
          'Team profitability per member and project for a range of entry dates (default: the current month in the workspace time zone), converted to the base currency',
        description: 'Who may call: Owner, Admin; read scope; Agency plan.',
        querystring: strictQuerySchema(profitabilityQuery),
        response: readResponses(
          { 200: answersAsTable(singleResponse(profitabilitySchema), ['data', 'members']) },
          { 422: ['validation_failed', 'invalid_query'], 503: ['read_model_unavailable'] },
        ),
      },
    },
    async (request, reply) => {
      const caller = request.caller;
      const query = request.query;
      // Each end defaults on its own to the current month in the workspace's time zone.
      const month = monthOf(todayIn(caller.timezone));
      const from = query.from ?? month.from;
      const to = query.to ?? month.to;
      if (from > to) {
        throw validationFailed(
          query.to === undefined
            ? { from: `must not be after to (${to}, the end of the current month)` }
            : { to: 'must not be before from' },
        );
      }
      const params = {
        workspaceId: caller.workspaceId,
        from,
        to,
        ...(query.userId === undefined ? {} : { userId: query.userId }),
        ...(query.projectId === undefined ? {} : { projectId: query.projectId }),
        ...(query.clientId === undefined ? {} : { clientId: query.clientId }),
        page: query.page ?? 1,
        perPage: query.perPage ?? DEFAULT_PER_PAGE,
        projects: query.projects ?? 'all',
      };
      const json = await context.read((connection) => loadProfitability(connection, params));
      // The record comes as JSON text (profitability.query.ts): sent as it is, not serialized.
      void reply.type('application/json; charset=utf-8');
      return `{"data":${json}}`;
    },
  );

  app.get(
    '/team-payouts/profitability/series',
    {
      config: { access: ACCESS, answers: PROFITABILITY_READS },
      schema: {
        summary:
          'Team profitability per month or week of a range of entry dates (default: the twelve months ending with the current one), converted to the base currency',
        description: 'Who may call: Owner, Admin; read scope; Agency plan.',
        querystring: strictQuerySchema(profitabilitySeriesQuery),
        response: readResponses(
          { 200: singleResponse(profitabilitySeriesSchema) },
          { 422: ['validation_failed', 'invalid_query'], 503: ['read_model_unavailable'] },
        ),
      },
    },
    async (request) => {
      const caller = request.caller;
      const query = request.query;
      const to = query.to ?? monthOf(todayIn(caller.timezone)).to;
      const from = query.from ?? monthsBefore(to, 11);
      const interval = query.interval ?? 'month';
      if (from > to) {
        // A default `from` is never after `to`.
        throw validationFailed(
          query.to === undefined
            ? { from: `must not be after to (${to}, the end of the current month)` }
            : { to: 'must not be before from' },
        );
      }
      const points = bucketsOf(from, to, interval).length;
      if (points > SERIES_POINTS)
        throw validationFailed({
          from: `the range holds ${points} ${interval}s; a series has at most ${SERIES_POINTS} points`,
        });
      const params = {
        workspaceId: caller.workspaceId,
        from,
        to,
        interval,
        ...(query.userId === undefined ? {} : { userId: query.userId }),
        ...(query.projectId === undefined ? {} : { projectId: query.projectId }),
        ...(query.clientId === undefined ? {} : { clientId: query.clientId }),
      };
      const data = await context.read((connection) => readSeries(connection, params));
      return { data };
    },
  );
};
