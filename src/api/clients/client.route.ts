import { SEARCHED_TABLES } from '../../search/search-index.ts';
import { IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyHeader, runIdempotent } from '../idempotency.ts';
import { answerList } from '../list/list-endpoint.ts';
import { MANAGER_UP } from '../roles.ts';
import {
  CREATE_ERRORS,
  idParams,
  LIST_ERRORS,
  readInHandler,
  responses,
  UPDATE_ERRORS,
  type AnswerReads,
  type RoutePlugin,
  readResponses,
} from '../route-schema.ts';
import { listResponse, singleResponse } from '../schema-parts.ts';
import { runUpdate } from '../write.ts';
import { clientInput, parseClientInput } from './client.input.ts';
import { clientList, clientListQuery } from './client.list.ts';
import { clientRecord, clientRowToRecord } from './client.record.ts';
import { findClientForUpdate, insertClient, updateClient } from './client.repository.ts';
/** What a page of clients reads (config.answers): its rows; a search, the index. */
const CLIENT_READS: AnswerReads = {
  reads: ['clients'],
  withParameter: { search: SEARCHED_TABLES },
};

const access = (scope: 'read' | 'write') => ({ roles: MANAGER_UP, scope });

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
    {
      config: { access: access('write') },
      schema: {
        summary: 'Create a client',
        description: 'Who may call: Manager, Admin, Owner; write scope.',
        // The key is optional here (docs/contract.md, "Idempotency" leaves it open;
        // docs/decisions.md).
        responseHeaders: { 201: IDEMPOTENT_REPLAYED_HEADER },
        headers: idempotencyKeyHeader({ required: false }),
        body: clientInput,
        response: responses({ 201: singleResponse(clientRecord) }, CREATE_ERRORS),
      },
    },
    async (request, reply) => {
      const caller = request.caller;
      const input = request.body;
      await runIdempotent({ db: context.db, request, reply, required: false }, async (trx) => ({
        status: 201,
        body: {
          data: clientRowToRecord(
            await insertClient(trx, caller.workspaceId, input),
            caller.baseCurrency,
          ),
        },
      }));
      return reply;
    },
  );

  app.patch(
    '/clients/:id',
    {
      config: { access: access('write') },
      schema: {
        summary: 'Update a client',
        description: 'Who may call: Manager, Admin, Owner; write scope.',
        params: idParams,
        // Read in the handler: the record (404) comes before the body (422).
        body: readInHandler(clientInput),
        response: responses({ 200: singleResponse(clientRecord) }, UPDATE_ERRORS),
      },
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runUpdate(context, request, {
        find: (trx) => findClientForUpdate(trx, caller.workspaceId, id),
        parse: () => parseClientInput(request.body),
        write: async (trx, _client, input) => ({
          data: clientRowToRecord(await updateClient(trx, id, input), caller.baseCurrency),
        }),
      });
    },
  );
};
