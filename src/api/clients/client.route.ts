import type { FastifyInstance } from 'fastify';
import { requireAccess } from '../../http/access.ts';
import type { RouteContext } from '../../http/app.ts';
import { answerList } from '../../http/list/list-endpoint.ts';
import { parseQuery } from '../../http/list/list-query.ts';
import { MANAGER_UP } from '../roles.ts';
import { clientList, clientListQuery } from './client.list.ts';

/** /clients: Manager, Admin and Owner (api-v1 "Role rules by area"). */
export function registerClientRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get('/clients', async (request) => {
    requireAccess(request.caller, { roles: MANAGER_UP, scope: 'read' });
    const query = parseQuery(clientListQuery, request.query);
    return context.read((connection) =>
      answerList(connection, clientList, query, request.caller, context.cursors),
    );
  });
}
