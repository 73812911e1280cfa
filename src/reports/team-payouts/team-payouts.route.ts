import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { recordId } from '../../api/write.ts';
import { OWNER_ADMIN, requireAccess, type AccessRule } from '../../api/access.ts';
import type { RouteContext } from '../../api/route-context.ts';
import { forbiddenPlan, notFound } from '../../api/errors.ts';
import { answerList } from '../../api/list/list-endpoint.ts';
import { billList, billListQuery, findBill } from './bills.ts';
import { findPayee, payeeList, payeeListQuery } from './payees.ts';
import { findPayment, paymentList, paymentListQuery } from './payments.ts';
import { parseStrictList } from './strict-list.ts';
import { unpaidTimeList, unpaidTimeQuery } from './unpaid-time.ts';

/** A read of one record takes no query parameters: any is 422 invalid_query. */
const NO_PARAMETERS = z.object({});

/** Bills and payments: Owner/Admin with read scope, on Studio too (decisions 2). */
const FINALIZED: AccessRule = { roles: OWNER_ADMIN, scope: 'read' };
/** Payees and unpaid time: Owner/Admin with read scope, Agency plan. */
const AGENCY: AccessRule = {
  roles: OWNER_ADMIN,
  scope: 'read',
  feature: { plan: 'agency', name: 'team_payouts' },
};

/** The read-only team-payout area (api-v1 "Team payout endpoints", decisions 7). */
export function registerTeamPayoutRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get('/team-payouts/bills', async (request) => {
    const caller = request.caller;
    requireAccess(caller, FINALIZED);
    // Drafts need Agency (decisions 2): asking for them is a plan error, checked before input.
    const raw = (request.query ?? {}) as Record<string, unknown>;
    if (raw.status === 'DRAFT' && caller.plan !== 'agency')
      throw forbiddenPlan('agency', 'draft_bills');
    const query = parseStrictList(billListQuery, request.query);
    return context.read((c) => answerList(c, billList, query, caller, context));
  });

  app.get<{ Params: { id: string } }>('/team-payouts/bills/:id', async (request) => {
    requireAccess(request.caller, FINALIZED);
    parseStrictList(NO_PARAMETERS, request.query);
    const id = recordId(request.params.id);
    const bill = await context.read((c) => findBill(c, request.caller, id));
    if (!bill) throw notFound();
    return { data: bill };
  });

  app.get('/team-payouts/payments', async (request) => {
    requireAccess(request.caller, FINALIZED);
    const query = parseStrictList(paymentListQuery, request.query);
    return context.read((c) => answerList(c, paymentList, query, request.caller, context));
  });

  app.get<{ Params: { id: string } }>('/team-payouts/payments/:id', async (request) => {
    requireAccess(request.caller, FINALIZED);
    parseStrictList(NO_PARAMETERS, request.query);
    const id = recordId(request.params.id);
    const payment = await context.read((c) => findPayment(c, request.caller.workspaceId, id));
    if (!payment) throw notFound();
    return { data: payment };
  });

  app.get('/team-payouts/payees', async (request) => {
    requireAccess(request.caller, AGENCY);
    const query = parseStrictList(payeeListQuery, request.query);
    return context.read((c) => answerList(c, payeeList, query, request.caller, context));
  });

  app.get<{ Params: { id: string } }>('/team-payouts/payees/:id', async (request) => {
    requireAccess(request.caller, AGENCY);
    parseStrictList(NO_PARAMETERS, request.query);
    const id = recordId(request.params.id);
    const payee = await context.read((c) => findPayee(c, request.caller.workspaceId, id));
    if (!payee) throw notFound();
    return { data: payee };
  });

  app.get('/team-payouts/unpaid-time', async (request) => {
    requireAccess(request.caller, AGENCY);
    const query = parseStrictList(unpaidTimeQuery, request.query);
    return context.read((c) => answerList(c, unpaidTimeList, query, request.caller, context));
  });
}
