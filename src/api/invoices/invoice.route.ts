import type { FastifyInstance } from 'fastify';
import { requireAccess } from '../access.ts';
import type { RouteContext } from '../route-context.ts';
import { notFound } from '../errors.ts';
import { answerList } from '../list/list-endpoint.ts';
import { parseQuery } from '../list/list-query.ts';
import { MANAGER_UP } from '../roles.ts';
import { recordId } from '../write.ts';
import { INVOICE_BY_ID, invoiceList, invoiceListQuery } from './invoice.list.ts';
import { invoiceRowToRecord } from './invoice.record.ts';
import { readAll } from '../../readmodel/read-all.ts';

/** /invoices (read-only in v1): Manager, Admin and Owner. */
export function registerInvoiceRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get('/invoices', async (request) => {
    requireAccess(request.caller, { roles: MANAGER_UP, scope: 'read' });
    const query = parseQuery(invoiceListQuery, request.query);
    return context.read((connection) =>
      answerList(connection, invoiceList, query, request.caller, context),
    );
  });

  app.get<{ Params: { id: string } }>('/invoices/:id', async (request) => {
    requireAccess(request.caller, { roles: MANAGER_UP, scope: 'read' });
    const id = recordId(request.params.id);
    const row = await context.read(async (connection) => {
      const reader = await readAll(connection, INVOICE_BY_ID, {
        id,
        ws: request.caller.workspaceId,
      });
      return reader.getRowObjectsJS()[0];
    });
    if (!row) throw notFound();
    return { data: invoiceRowToRecord(row) };
  });
}
