import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { OWNER_ADMIN, type AccessRule } from '../../api/access.ts';
import { forbiddenPlan, notFound } from '../../api/errors.ts';
import { answerList } from '../../api/list/list-endpoint.ts';
import {
  idParams,
  readInHandler,
  readStrictQuery,
  strictQuerySchema,
  type ErrorsByStatus,
  type AnswerReads,
  type RoutePlugin,
  readResponses,
} from '../../api/route-schema.ts';
import { listResponse, singleResponse } from '../../api/schema-parts.ts';
import { billList, billListQuery, billRecord, findBill } from './bills.ts';
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

/** A read of one record takes no query parameters: any is 422 invalid_query. */
/** A record route takes no query; it reads it after finding its record (404 before 422). */
const NO_PARAMETERS = strictQuerySchema(z.object({}));
const RECORD_QUERY = readInHandler(NO_PARAMETERS);

/** A record read's answer: its record found (else 404), then its query read (else 422). */
async function answerRecord<T>(
  request: FastifyRequest,
  found: Promise<T | undefined>,
): Promise<{ data: T }> {
  const record = await found;
  if (!record) throw notFound();
  readStrictQuery(NO_PARAMETERS, request.query);
  return { data: record };
}

/** Bills and payments: Owner/Admin with read scope, on Studio too (decisions 2). */
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

const LIST_ERRORS: ErrorsByStatus = {
  422: ['validation_failed', 'invalid_query', 'invalid_cursor'],
  503: ['read_model_unavailable'],
};
const RECORD_ERRORS: ErrorsByStatus = {
  404: ['not_found'],
  422: ['invalid_query'],
  503: ['read_model_unavailable'],
};

/** Drafts need Agency (decisions 2): asking for them is a plan error, before the input's. */
function draftsNeedAgency(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown>;
  if (query.status === 'DRAFT' && request.caller.plan !== 'agency')
    throw forbiddenPlan('agency', 'draft_bills');
}

/** The read-only team-payout area (api-v1 "Team payout endpoints", decisions 7). */
export const teamPayoutRoutes: RoutePlugin = async (app, { context }) => {
  app.get(
    '/team-payouts/bills',
    {
      config: { access: FINALIZED, beforeInput: draftsNeedAgency, answers: BILL_READS },
      schema: {
        summary: 'List team bills with their figures, lines and payments',
        description: FINALIZED_WHO,
        querystring: strictQuerySchema(billListQuery),
        response: readResponses({ 200: listResponse(billRecord) }, LIST_ERRORS),
      },
    },
    async (request) =>
      context.read((c) => answerList(c, billList, request.query, request.caller, context)),
  );

  app.get(
    '/team-payouts/bills/:id',
    {
      config: { access: FINALIZED, answers: BILL_READS },
      schema: {
        summary: 'Get a team bill',
        description: FINALIZED_WHO,
        params: idParams,
        querystring: RECORD_QUERY,
        response: readResponses({ 200: singleResponse(billRecord) }, RECORD_ERRORS),
      },
    },
    async (request) =>
      answerRecord(
        request,
        context.read((c) => findBill(c, request.caller, request.params.id)),
      ),
  );

  app.get(
    '/team-payouts/payments',
    {
      config: { access: FINALIZED, answers: PAYMENT_READS },
      schema: {
        summary: 'List team payments with allocations',
        description: FINALIZED_WHO,
        querystring: strictQuerySchema(paymentListQuery),
        response: readResponses({ 200: listResponse(paymentRecord) }, LIST_ERRORS),
      },
    },
    async (request) =>
      context.read((c) => answerList(c, paymentList, request.query, request.caller, context)),
  );

  app.get(
    '/team-payouts/payments/:id',
    {
      config: { access: FINALIZED, answers: PAYMENT_READS },
      schema: {
        summary: 'Get a team payment',
        description: FINALIZED_WHO,
        params: idParams,
        querystring: RECORD_QUERY,
        response: readResponses({ 200: singleResponse(paymentRecord) }, RECORD_ERRORS),
      },
    },
    async (request) =>
      answerRecord(
        request,
        context.read((c) => findPayment(c, request.caller.workspaceId, request.params.id)),
      ),
  );

  app.get(
    '/team-payouts/payees',
    {
      config: { access: AGENCY, answers: PAYEE_READS },
      schema: {
        summary: 'List payees with rates and credits',
        description: AGENCY_WHO,
        querystring: strictQuerySchema(payeeListQuery),
        response: readResponses({ 200: listResponse(payeeRecord) }, LIST_ERRORS),
      },
    },
    async (request) =>
      context.read((c) => answerList(c, payeeList, request.query, request.caller, context)),
  );

  app.get(
    '/team-payouts/payees/:id',
    {
      config: { access: AGENCY, answers: PAYEE_READS },
      schema: {
        summary: 'Get a payee',
        description: AGENCY_WHO,
        params: idParams,
        querystring: RECORD_QUERY,
        response: readResponses({ 200: singleResponse(payeeRecord) }, RECORD_ERRORS),
      },
    },
    async (request) =>
      answerRecord(
        request,
        context.read((c) => findPayee(c, request.caller.workspaceId, request.params.id)),
      ),
  );

  app.get(
    '/team-payouts/unpaid-time',
    {
      config: { access: AGENCY, answers: UNPAID_TIME_READS },
      schema: {
        summary: 'List unpaid time (scope=all adds non-billable work)',
        description: AGENCY_WHO,
        querystring: strictQuerySchema(unpaidTimeQuery),
        response: readResponses({ 200: listResponse(unpaidTimeRecord) }, LIST_ERRORS),
      },
    },
    async (request) =>
      context.read((c) => answerList(c, unpaidTimeList, request.query, request.caller, context)),
  );
};
