import { SEARCHED_TABLES } from '../../search/search-index.ts';
import { lockedRecord } from '../locked-row.ts';
import { answerList } from '../list/list-endpoint.ts';
import { MANAGER_UP } from '../roles.ts';
import { LIST_ERRORS, type AnswerReads, type RoutePlugin, readResponses } from '../route-schema.ts';
import { listResponse } from '../schema-parts.ts';
import { runUpdate } from '../write.ts';
import { keyedCreate, recordUpdateSchema } from '../write-routes.ts';
import { clientInput, parseClientInput } from './client.input.ts';
import { clientList, clientListQuery } from './client.list.ts';
import { clientRecord, clientRowToRecord } from './client.record.ts';
import { insertClient, updateClient } from './client.repository.ts';
/** What a page of clients reads (config.answers): its rows; a search, the index. */
const CLIENT_READS: AnswerReads = {
  reads: ['clients'],
  withParameter: { search: SEARCHED_TABLES },
};

const access = (scope: 'read' | 'write') => ({ roles: MANAGER_UP, scope });

const create = keyedCreate({
  summary: 'Create a client',
  description: 'Who may call: Manager, Admin, Owner; write scope.',
  // The key is optional here (docs/contract.md, "Idempotency" leaves it open; docs/decisions.md).
  keyRequired: false,
  body: clientInput,
  record: clientRecord,
});

/** /clients: Manager, Admin and Owner (docs/contract.md, "Role rules by area"). */
export const clientRoutes: RoutePlugin = async (app, { context }) => {
  app.get(
    '/clients',
    {
      config: { access: access('read'), answers: CLIENT_READS },
      schema: {
        summary: 'List clients',
        description: 'Who may call: Manager, Admin, Owner; read scope.',
        querystring: clientListQuery,
        response: readResponses({ 200: listResponse(clientRecord) }, LIST_ERRORS),
      },
    },
    async (request) =>
      context.read((connection) =>
        answerList(connection, clientList, request.query, request.caller, context),
      ),
  );

  app.post(
    '/clients',
    { config: { access: access('write') }, schema: create.schema },
    (request, reply) =>
      create.run({ db: context.db, request, reply }, async (trx) =>
        clientRowToRecord(
          await insertClient(trx, request.caller.workspaceId, request.body),
          request.caller.baseCurrency,
        ),
      ),
  );

  app.patch(
    '/clients/:id',
    {
      config: { access: access('write') },
      schema: recordUpdateSchema({
        summary: 'Update a client',
        description: 'Who may call: Manager, Admin, Owner; write scope.',
        body: clientInput,
        record: clientRecord,
      }),
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runUpdate(context, request, {
        find: (trx) => lockedRecord(trx, 'clients', caller.workspaceId, id),
        parse: () => parseClientInput(request.body),
        write: async (trx, _client, input) => ({
          data: clientRowToRecord(await updateClient(trx, id, input), caller.baseCurrency),
        }),
      });
    },
  );
};
