import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { requireAccess } from '../access.ts';
import type { RouteContext } from '../route-context.ts';
import type { Caller } from '../caller.ts';
import { forbiddenScope, notFound } from '../errors.ts';
import { runIdempotent } from '../idempotency.ts';
import type { Database } from '../../store/schema.ts';
import { isProjectMember, requireMembers, requireProject } from '../references.ts';
import { MANAGER_UP } from '../roles.ts';
import { recordId, runUpdate, runWrite } from '../write.ts';
import { parseTaskCreate, parseTaskUpdate } from './task.input.ts';
import { taskRowToRecord } from './task.record.ts';
import { archiveTask, findTaskForUpdate, insertTask, updateTask } from './task.repository.ts';

/**
 * Member limits (api-v1 "Task permissions for Member tokens"): tasks only on projects they
 * were granted, and assigned to themselves alone.
 */
async function checkMemberTask(
  trx: Transaction<Database>,
  caller: Caller,
  projectId: string | undefined,
  assigneeIds: string[] | undefined,
): Promise<void> {
  if (caller.role !== 'MEMBER') return;
  if (projectId !== undefined && !(await isProjectMember(trx, projectId, caller.userId)))
    throw forbiddenScope();
  if (assigneeIds !== undefined && (assigneeIds.length !== 1 || assigneeIds[0] !== caller.userId))
    throw forbiddenScope();
}

/** /tasks: any role with the Member limits; archiving (DELETE) for Managers and up. */
export function registerTaskRoutes(app: FastifyInstance, context: RouteContext): void {
  app.post('/tasks', async (request, reply) => {
    const caller = request.caller;
    requireAccess(caller, { scope: 'write' });
    const input = parseTaskCreate(request.body);
    await runIdempotent(
      { db: context.db, request, reply, required: true },
      async (trx) => {
        await requireProject(trx, caller.workspaceId, input.projectId);
        // A Member's task without assignees is their own (decisions 6).
        const assigneeIds = input.assigneeIds ?? (caller.role === 'MEMBER' ? [caller.userId] : []);
        await checkMemberTask(trx, caller, input.projectId, assigneeIds);
        await requireMembers(trx, caller.workspaceId, assigneeIds, 'assigneeIds');
        const row = await insertTask(trx, caller.workspaceId, { ...input, assigneeIds });
        return { status: 201, body: { data: taskRowToRecord(row) } };
      },
      () => context.readModelCaughtUp(),
    );
    return reply;
  });

  app.patch<{ Params: { id: string } }>('/tasks/:id', async (request) => {
    const caller = request.caller;
    requireAccess(caller, { scope: 'write' });
    const id = recordId(request.params.id);
    const row = await runUpdate(context, {
      find: async (trx) => {
        const task = await findTaskForUpdate(trx, caller.workspaceId, id);
        return task?.deleted_at === null ? task : undefined;
      },
      allow: (task) => {
        // Members edit only the tasks they are assigned to.
        if (caller.role === 'MEMBER' && !task.assignee_ids.includes(caller.userId))
          throw forbiddenScope();
      },
      parse: () => parseTaskUpdate(request.body),
      write: async (trx, _task, input) => {
        if (input.projectId !== undefined)
          await requireProject(trx, caller.workspaceId, input.projectId);
        await checkMemberTask(trx, caller, input.projectId, input.assigneeIds);
        if (input.assigneeIds)
          await requireMembers(trx, caller.workspaceId, input.assigneeIds, 'assigneeIds');
        return updateTask(trx, id, input);
      },
    });
    return { data: taskRowToRecord(row) };
  });

  app.delete<{ Params: { id: string } }>('/tasks/:id', async (request) => {
    const caller = request.caller;
    requireAccess(caller, { roles: MANAGER_UP, scope: 'write' });
    const id = recordId(request.params.id);
    const row = await runWrite(context, async (trx) => {
      const task = await findTaskForUpdate(trx, caller.workspaceId, id);
      if (!task) throw notFound();
      // Archiving an archived task answers it as it is (decisions 6).
      return task.deleted_at === null ? archiveTask(trx, id) : task;
    });
    return { data: taskRowToRecord(row) };
  });
}
