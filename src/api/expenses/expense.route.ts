import { lockedRecord } from '../locked-row.ts';
import { MANAGER_UP } from '../roles.ts';
import type { RoutePlugin } from '../route-schema.ts';
import { runUpdate } from '../write.ts';
import { keyedCreate, recordUpdateSchema } from '../write-routes.ts';
import { expenseCreateInput, expenseUpdateInput, parseExpenseUpdate } from './expense.input.ts';
import { expenseRecord, expenseRowToRecord } from './expense.record.ts';
import { insertExpense, updateExpense } from './expense.repository.ts';

const WHO = 'Who may call: Manager, Admin, Owner; write scope.';
const access = { roles: MANAGER_UP, scope: 'write' as const };

const create = keyedCreate({
  summary: 'Create an expense (its currency is the client’s)',
  description: WHO,
  keyRequired: true,
  body: expenseCreateInput,
  record: expenseRecord,
});

/** /expenses: Manager, Admin and Owner. */
export const expenseRoutes: RoutePlugin = async (app, { context }) => {
  app.post('/expenses', { config: { access }, schema: create.schema }, (request, reply) =>
    create.run({ db: context.db, request, reply }, async (trx) =>
      expenseRowToRecord(await insertExpense(trx, request.caller.workspaceId, request.body)),
    ),
  );

  app.patch(
    '/expenses/:id',
    {
      config: { access },
      schema: recordUpdateSchema({
        summary: 'Update an expense',
        description: WHO,
        body: expenseUpdateInput,
        record: expenseRecord,
      }),
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runUpdate(context, request, {
        find: (trx) => lockedRecord(trx, 'expenses', caller.workspaceId, id),
        parse: () => parseExpenseUpdate(request.body),
        write: async (trx, expense, input) => ({
          data: expenseRowToRecord(await updateExpense(trx, caller.workspaceId, expense, input)),
        }),
      });
    },
  );
};
