import { IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyHeader, runIdempotent } from '../idempotency.ts';
import { MANAGER_UP } from '../roles.ts';
import {
  KEYED_CREATE_ERRORS,
  idParams,
  readInHandler,
  responses,
  UPDATE_ERRORS,
  type RoutePlugin,
} from '../route-schema.ts';
import { singleResponse } from '../schema-parts.ts';
import { runUpdate } from '../write.ts';
import { expenseCreateInput, expenseUpdateInput, parseExpenseUpdate } from './expense.input.ts';
import { expenseRecord, expenseRowToRecord } from './expense.record.ts';
import { findExpenseForUpdate, insertExpense, updateExpense } from './expense.repository.ts';

const WHO = 'Who may call: Manager, Admin, Owner; write scope.';

/** /expenses: Manager, Admin and Owner. */
export const expenseRoutes: RoutePlugin = async (app, { context }) => {
  app.post(
    '/expenses',
    {
      config: { access: { roles: MANAGER_UP, scope: 'write' } },
      schema: {
        summary: 'Create an expense (its currency is the client’s)',
        description: WHO,
        responseHeaders: { 201: IDEMPOTENT_REPLAYED_HEADER },
        headers: idempotencyKeyHeader({ required: true }),
        body: expenseCreateInput,
        response: responses({ 201: singleResponse(expenseRecord) }, KEYED_CREATE_ERRORS),
      },
    },
    async (request, reply) => {
      const caller = request.caller;
      const input = request.body;
      await runIdempotent({ db: context.db, request, reply, required: true }, async (trx) => ({
        status: 201,
        body: { data: expenseRowToRecord(await insertExpense(trx, caller.workspaceId, input)) },
      }));
      return reply;
    },
  );

  app.patch(
    '/expenses/:id',
    {
      config: { access: { roles: MANAGER_UP, scope: 'write' } },
      schema: {
        summary: 'Update an expense',
        description: WHO,
        params: idParams,
        // Read in the handler: the record (404) comes before the body (422).
        body: readInHandler(expenseUpdateInput),
        response: responses({ 200: singleResponse(expenseRecord) }, UPDATE_ERRORS),
      },
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runUpdate(context, request, {
        find: (trx) => findExpenseForUpdate(trx, caller.workspaceId, id),
        parse: () => parseExpenseUpdate(request.body),
        write: async (trx, expense, input) => ({
          data: expenseRowToRecord(await updateExpense(trx, caller.workspaceId, expense, input)),
        }),
      });
    },
  );
};
