import type { FastifyInstance } from 'fastify';
import { singleResponse } from '../../api/schema-parts.ts';
import { OWNER_ADMIN, requireAccess } from '../../api/access.ts';
import type { RouteContext } from '../../api/route-context.ts';
import { validationFailed } from '../../api/errors.ts';
import { parseQuery } from '../../api/list/list-query.ts';
import type { OperationDoc } from '../../api/operation-doc.ts';
import { strictQuery } from '../../api/strict-query.ts';
import { todayIn } from '../../time/calendar.ts';
import { loadProfitability } from './profitability.query.ts';
import { monthOf } from './profitability.range.ts';
import { profitabilityQuery, profitabilitySchema } from './profitability.schema.ts';

const DEFAULT_PER_PAGE = 25;

/** GET /team-payouts/profitability (decisions 8): Owner/Admin with read scope, Agency plan. */
export function registerProfitabilityRoute(app: FastifyInstance, context: RouteContext): void {
  app.get('/team-payouts/profitability', async (request, reply) => {
    const caller = request.caller;
    requireAccess(caller, {
      roles: OWNER_ADMIN,
      scope: 'read',
      feature: { plan: 'agency', name: 'team_payouts' },
    });
    const query = parseQuery(
      profitabilityQuery,
      strictQuery(request.query, Object.keys(profitabilityQuery.shape)),
    );
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
    };
    const json = await context.read((connection) => loadProfitability(connection, params));
    // The record comes as JSON text (profitability.query.ts): sent as it is, not serialized.
    void reply.type('application/json; charset=utf-8');
    return `{"data":${json}}`;
  });
}

/** The operation as the OpenAPI document describes it. */
export const profitabilityOperation: OperationDoc = {
  method: 'get',
  path: '/team-payouts/profitability',
  summary:
    'Team profitability per member and project for a range of entry dates (default: the current month in the workspace time zone), converted to the base currency',
  access: 'Owner, Admin; read scope; Agency plan',
  query: profitabilityQuery,
  success: { status: 200, schema: singleResponse(profitabilitySchema) },
  errors: { 422: ['validation_failed', 'invalid_query'], 503: ['read_model_unavailable'] },
};
