import type { Transaction } from 'kysely';
import type { Caller } from '../caller.ts';
import { forbiddenScope, notFound } from '../errors.ts';
import type { Database } from '../../store/schema.ts';
import { lockedRecord } from '../locked-row.ts';
import { isProjectMember, requireMembers, requireProject } from '../references.ts';
import { MANAGER_UP } from '../roles.ts';
import { idParams, responses, type RoutePlugin } from '../route-schema.ts';
import { singleResponse } from '../schema-parts.ts';
import { runUpdate, runWrite } from '../write.ts';
import { keyedCreate, recordUpdateSchema } from '../write-routes.ts';
import { parseTaskUpdate, taskCreateInput, taskUpdateInput } from './task.input.ts';
import { taskRecord, taskRowToRecord } from './task.record.ts';
import { archiveTask, insertTask, updateTask } from './task.repository.ts';

/**
 * Member limits (docs/contract.md, "Task permissions for Member tokens"): tasks only on projects
 * they were granted, and assigned to themselves alone.
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

const create = keyedCreate({
  summary: 'Create a task (Members: self-assigned, on granted projects)',
  description: 'Who may call: any role; write scope.',
  keyRequired: true,
  body: taskCreateInput,
  record: taskRecord,
});

/** /tasks: any role with the Member limits; archiving (DELETE) for Managers and up. */
export const taskRoutes: RoutePlugin = async (app, { context }) => {
  app.post(
    '/tasks',
    { config: { access: { scope: 'write' } }, schema: create.schema },
    (request, reply) => {
      const caller = request.caller;
      const input = request.body;
      return create.run({ db: context.db, request, reply }, async (trx) => {
        await requireProject(trx, caller.workspaceId, input.projectId);
        // A Member's task without assignees is their own (docs/decisions.md, Writes).
        const assigneeIds = input.assigneeIds ?? (caller.role === 'MEMBER' ? [caller.userId] : []);
        await checkMemberTask(trx, caller, input.projectId, assigneeIds);
        await requireMembers(trx, caller.workspaceId, assigneeIds, 'assigneeIds');
        return taskRowToRecord(
          await insertTask(trx, caller.workspaceId, { ...input, assigneeIds }),
        );
      });
    },
  );

  app.patch(
    '/tasks/:id',
    {
      config: { access: { scope: 'write' } },
      schema: recordUpdateSchema({
        summary: 'Update a task (Members: tasks assigned to them)',
        description: 'Who may call: any role; write scope.',
        body: taskUpdateInput,
        record: taskRecord,
      }),
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runUpdate(context, request, {
        find: async (trx) => {
          return lockedRecord(trx, 'tasks', caller.workspaceId, id);
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
          return { data: taskRowToRecord(await updateTask(trx, id, input)) };
        },
      });
    },
  );

  app.delete(
    '/tasks/:id',
    {
      config: { access: { roles: MANAGER_UP, scope: 'write' } },
      schema: {
        summary: 'Archive a task (sets deletedAt; repeating answers the same)',
        description: 'Who may call: Manager, Admin, Owner; write scope.',
        params: idParams,
        response: responses({ 200: singleResponse(taskRecord) }, { 404: ['not_found'] }),
      },
    },
    async (request) => {
      const caller = request.caller;
      const { id } = request.params;
      return runWrite(context, request, async (trx) => {
        const task = await lockedRecord(trx, 'tasks', caller.workspaceId, id, { deleted: true });
        if (!task) throw notFound();
        // Archiving an archived task answers it as it is (docs/contract.md, "Task writes").
        return {
          data: taskRowToRecord(task.deleted_at === null ? await archiveTask(trx, id) : task),
        };
      });
    },
  );
};
