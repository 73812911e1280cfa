import { SEARCHED_TABLES } from '../../search/search-index.ts';
import { readAll } from '../../readmodel/read-all.ts';
import { notFound } from '../errors.ts';
import { answerList } from '../list/list-endpoint.ts';
import { MANAGER_UP } from '../roles.ts';
import {
  idParams,
  LIST_ERRORS,
  type AnswerReads,
  type RoutePlugin,
  readResponses,
} from '../route-schema.ts';
import { listResponse, singleResponse } from '../schema-parts.ts';
import { INVOICE_BY_ID, invoiceList, invoiceListQuery } from './invoice.list.ts';
import { invoiceRecord, invoiceRowToRecord } from './invoice.record.ts';
/**
 * What an invoice page or record reads (config.answers): its rows and clients; a search, the
 * index.
 */
const INVOICE_READS: AnswerReads = {
  reads: ['clients', 'invoices'],
  withParameter: { search: SEARCHED_TABLES },
};

const READ = { roles: MANAGER_UP, scope: 'read' } as const;
const WHO = 'Who may call: Manager, Admin, Owner; read scope.';

/** /invoices (read-only in v1): Manager, Admin and Owner. */
export const invoiceRoutes: RoutePlugin = async (app, { context }) => {
  app.get(
    '/invoices',
    {
      config: { access: READ, answers: INVOICE_READS },
      schema: {
        summary: 'List invoices',
        description: WHO,
        querystring: invoiceListQuery,
        response: readResponses({ 200: listResponse(invoiceRecord) }, LIST_ERRORS),
      },
    },
    async (request) =>
      context.read((connection) =>
        answerList(connection, invoiceList, request.query, request.caller, context),
      ),
  );

  app.get(
    '/invoices/:id',
    {
      config: { access: READ, answers: INVOICE_READS },
      schema: {
        summary: 'Get one invoice',
        description: WHO,
        params: idParams,
        response: readResponses(
          { 200: singleResponse(invoiceRecord) },
          { 404: ['not_found'], 503: ['read_model_unavailable'] },
        ),
      },
    },
    async (request) => {
      const row = await context.read(async (connection) => {
        const reader = await readAll(connection, INVOICE_BY_ID, {
          id: request.params.id,
          ws: request.caller.workspaceId,
        });
        return reader.getRowObjectsJS()[0];
      });
      if (!row) throw notFound();
      return { data: invoiceRowToRecord(row) };
    },
  );
};
