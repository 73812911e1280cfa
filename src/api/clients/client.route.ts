import type { FastifyInstance } from 'fastify';
import { requireAccess } from '../access.ts';
import type { RouteContext } from '../route-context.ts';
import { runIdempotent } from '../idempotency.ts';
import { answerList } from '../list/list-endpoint.ts';
import { parseQuery } from '../list/list-query.ts';
import { MANAGER_UP } from '../roles.ts';
import { recordId, runUpdate } from '../write.ts';
import { parseClientInput } from './client.input.ts';
import { clientList, clientListQuery } from './client.list.ts';
import { clientRowToRecord } from './client.record.ts';
import { findClientForUpdate, insertClient, updateClient } from './client.repository.ts';

/** /clients: Manager, Admin and Owner (api-v1 "Role rules by area"). */
export function registerClientRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get('/clients', async (request) => {
    requireAccess(request.caller, { roles: MANAGER_UP, scope: 'read' });
    const query = parseQuery(clientListQuery, request.query);
    return context.read((connection) =>
      answerList(connection, clientList, query, request.caller, context),
    );
  });

  app.post('/clients', async (request, reply) => {
    const caller = request.caller;
    requireAccess(caller, { roles: MANAGER_UP, scope: 'write' });
    const input = parseClientInput(request.body);
    // The key is optional here (decisions 6 leaves it open; docs/decisions.md).
    await runIdempotent(
      { db: context.db, request, reply, required: false },
      async (trx) => ({
        status: 201,
        body: {
          data: clientRowToRecord(
            await insertClient(trx, caller.workspaceId, input),
            caller.baseCurrency,
          ),
        },
      }),
      () => context.readModelCaughtUp(),
    );
    return reply;
  });

  app.patch<{ Params: { id: string } }>('/clients/:id', async (request) => {
    const caller = request.caller;
    requireAccess(caller, { roles: MANAGER_UP, scope: 'write' });
    const id = recordId(request.params.id);
    const row = await runUpdate(context, {
      find: (trx) => findClientForUpdate(trx, caller.workspaceId, id),
      parse: () => parseClientInput(request.body),
      write: (trx, _client, input) => updateClient(trx, id, input),
    });
    return { data: clientRowToRecord(row, caller.baseCurrency) };
  });
}
