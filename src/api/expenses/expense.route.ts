import type { FastifyInstance } from 'fastify';
import { requireAccess } from '../access.ts';
import type { RouteContext } from '../route-context.ts';
import { runIdempotent } from '../idempotency.ts';
import { MANAGER_UP } from '../roles.ts';
import { recordId, runUpdate } from '../write.ts';
import { parseExpenseCreate, parseExpenseUpdate } from './expense.input.ts';
import { expenseRowToRecord } from './expense.record.ts';
import { findExpenseForUpdate, insertExpense, updateExpense } from './expense.repository.ts';

/** /expenses: Manager, Admin and Owner. */
export function registerExpenseRoutes(app: FastifyInstance, context: RouteContext): void {
  app.post('/expenses', async (request, reply) => {
    const caller = request.caller;
    requireAccess(caller, { roles: MANAGER_UP, scope: 'write' });
    const input = parseExpenseCreate(request.body);
    await runIdempotent(
      { db: context.db, request, reply, required: true },
      async (trx) => ({
        status: 201,
        body: { data: expenseRowToRecord(await insertExpense(trx, caller.workspaceId, input)) },
      }),
      () => context.readModelCaughtUp(),
    );
    return reply;
  });

  app.patch<{ Params: { id: string } }>('/expenses/:id', async (request) => {
    const caller = request.caller;
    requireAccess(caller, { roles: MANAGER_UP, scope: 'write' });
    const id = recordId(request.params.id);
    const row = await runUpdate(context, {
      find: (trx) => findExpenseForUpdate(trx, caller.workspaceId, id),
      parse: () => parseExpenseUpdate(request.body),
      write: (trx, expense, input) => updateExpense(trx, caller.workspaceId, expense, input),
    });
    return { data: expenseRowToRecord(row) };
  });
}
