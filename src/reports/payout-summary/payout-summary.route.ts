import type { FastifyInstance } from 'fastify';
import { canManagePayouts, OWNER_ADMIN, requireAccess } from '../../api/access.ts';
import type { RouteContext } from '../../api/route-context.ts';
import { validationFailed } from '../../api/errors.ts';
import { strictQuery } from '../../api/strict-query.ts';
import { isKnownCurrency } from '../../money/currencies.ts';
import { todayIn } from '../../time/calendar.ts';
import { loadPayoutSummary } from './payout-summary.query.ts';

/** GET /team-payouts/summary (decisions 7): Owner/Admin with read scope, Agency plan. */
export function registerPayoutSummaryRoute(app: FastifyInstance, context: RouteContext): void {
  app.get('/team-payouts/summary', async (request) => {
    const caller = request.caller;
    requireAccess(caller, {
      roles: OWNER_ADMIN,
      scope: 'read',
      feature: { plan: 'agency', name: 'team_payouts' },
    });
    const query = strictQuery(request.query, ['currency']);
    const currency = query.currency?.toUpperCase();
    if (currency !== undefined && !isKnownCurrency(currency)) {
      throw validationFailed({ currency: 'must be an ISO 4217 currency code' });
    }
    const data = await context.read((connection) =>
      loadPayoutSummary(connection, {
        workspaceId: caller.workspaceId,
        ...(currency === undefined ? {} : { currency }),
        today: todayIn(caller.timezone),
        canManage: canManagePayouts(caller),
      }),
    );
    return { data };
  });
}
