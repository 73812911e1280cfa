import type { FastifyRequest } from 'fastify';
import { OWNER_ADMIN, type AccessRule } from '../../api/access.ts';
import { forbiddenPlan } from '../../api/errors.ts';
import type { AnswerReads, RoutePlugin } from '../../api/route-schema.ts';
import { billList, billListQuery, billRecord, findBill } from './bills.ts';
import { listRoutes } from './list-routes.ts';
import { findPayee, payeeList, payeeListQuery, payeeRecord } from './payees.ts';
import { findPayment, paymentList, paymentListQuery, paymentRecord } from './payments.ts';
import { unpaidTimeList, unpaidTimeQuery, unpaidTimeRecord } from './unpaid-time.ts';
/**
 * What a page of unpaid time reads (config.answers): payee_entry_pay by its sources, and the
 * names of the entries' clients, projects and tasks.
 */
const UNPAID_TIME_READS: AnswerReads = {
  reads: [
    'clients',
    'payee_rates',
    'payees',
    'projects',
    'tasks',
    'team_bill_lines',
    'team_bills',
    'time_entries',
  ],
};
/** What a payee page or record reads (config.answers). */
const PAYEE_READS: AnswerReads = { reads: ['payee_credits', 'payee_rates', 'payees'] };
/** What a payment page or record reads (config.answers). */
const PAYMENT_READS: AnswerReads = {
  reads: ['payees', 'team_bills', 'team_payment_allocations', 'team_payments'],
};
/**
 * What a bill page or record reads (config.answers): team_bill_figures by its sources; the
 * client and project filters, the projects of the lines.
 */
const BILL_READS: AnswerReads = {
  reads: ['payees', 'team_bill_lines', 'team_bills', 'team_payment_allocations', 'team_payments'],
  withParameter: { clientId: ['clients', 'projects'], projectId: ['projects'] },
};

/** Bills and payments: Owner/Admin with read scope, on Studio too (docs/contract.md, "Role rules by area"). */
const FINALIZED: AccessRule = { roles: OWNER_ADMIN, scope: 'read' };
/** Payees and unpaid time: Owner/Admin with read scope, Agency plan. */
const AGENCY: AccessRule = {
  roles: OWNER_ADMIN,
  scope: 'read',
  feature: { plan: 'agency', name: 'team_payouts' },
};
const FINALIZED_WHO =
  'Who may call: Owner, Admin; read scope; Studio or Agency (drafts on Agency only).';
const AGENCY_WHO = 'Who may call: Owner, Admin; read scope; Agency plan.';

/**
 * Drafts need Agency (docs/contract.md, "Plans and roles"): asking for them is a plan error,
 * before the input's.
 */
function draftsNeedAgency(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown>;
  if (query.status === 'DRAFT' && request.caller.plan !== 'agency')
    throw forbiddenPlan('agency', 'draft_bills');
}

/**
 * The read-only team-payout area (docs/contract.md, "Team payout endpoints" and "Team
 * payouts").
 */
export const teamPayoutRoutes: RoutePlugin = async (app, { context }) => {
  const finalized = { access: FINALIZED, who: FINALIZED_WHO };
  const agency = { access: AGENCY, who: AGENCY_WHO };
  listRoutes(app, context, {
    ...finalized,
    path: '/team-payouts/bills',
    answers: BILL_READS,
    record: billRecord,
    list: {
      summary: 'List team bills with their figures, lines and payments',
      query: billListQuery,
      endpoint: billList,
      beforeInput: draftsNeedAgency,
    },
    one: { summary: 'Get a team bill', find: findBill },
  });
  listRoutes(app, context, {
    ...finalized,
    path: '/team-payouts/payments',
    answers: PAYMENT_READS,
    record: paymentRecord,
    list: {
      summary: 'List team payments with allocations',
      query: paymentListQuery,
      endpoint: paymentList,
    },
    one: {
      summary: 'Get a team payment',
      find: (c, caller, id) => findPayment(c, caller.workspaceId, id),
    },
  });
  listRoutes(app, context, {
    ...agency,
    path: '/team-payouts/payees',
    answers: PAYEE_READS,
    record: payeeRecord,
    list: {
      summary: 'List payees with rates and credits',
      query: payeeListQuery,
      endpoint: payeeList,
    },
    one: { summary: 'Get a payee', find: (c, caller, id) => findPayee(c, caller.workspaceId, id) },
  });
  listRoutes(app, context, {
    ...agency,
    path: '/team-payouts/unpaid-time',
    answers: UNPAID_TIME_READS,
    record: unpaidTimeRecord,
    list: {
      summary: 'List unpaid time (scope=all adds non-billable work)',
      query: unpaidTimeQuery,
      endpoint: unpaidTimeList,
    },
  });
};
