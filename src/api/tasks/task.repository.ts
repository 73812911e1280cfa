import { randomUUID } from 'node:crypto';
import type { Transaction, Updateable } from 'kysely';
import type { TaskTable } from '../../store/record-tables.ts';
import type { Database } from '../../store/schema.ts';
import type { TaskCreateInput, TaskUpdateInput } from './task.input.ts';

type TaskColumns = Omit<Updateable<TaskTable>, 'id' | 'workspace_id' | 'created_at'>;

function taskColumns(input: TaskUpdateInput): TaskColumns {
  const columns: TaskColumns = {};
  const set = <K extends keyof TaskColumns>(column: K, value: TaskColumns[K] | undefined) => {
    if (value !== undefined) columns[column] = value;
  };
  set('project_id', input.projectId);
  set('name', input.name);
  set('description', input.description);
  set('status', input.status);
  set('priority', input.priority);
  set('billable', input.billable);
  set('estimated_hours', input.estimatedHours);
  set('assignee_ids', input.assigneeIds);
  set('tags', input.tags);
  set('start_date', input.startDate);
  set('due_date', input.dueDate);
  set('end_date', input.endDate);
  return columns;
}

export async function insertTask(
  trx: Transaction<Database>,
  workspaceId: string,
  input: TaskCreateInput & { assigneeIds: string[] },
): Promise<Record<string, unknown>> {
  return trx
    .insertInto('tasks')
    .values({
      ...taskColumns(input),
      id: randomUUID(),
      workspace_id: workspaceId,
      project_id: input.projectId,
      name: input.name,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateTask(
  trx: Transaction<Database>,
  id: string,
  input: TaskUpdateInput,
): Promise<Record<string, unknown>> {
  return trx
    .updateTable('tasks')
    .set({ ...taskColumns(input), updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Archives a task (docs/contract.md, "Task writes"): sets deletedAt once; archiving it again
 * changes nothing.
 */
export async function archiveTask(
  trx: Transaction<Database>,
  id: string,
): Promise<Record<string, unknown>> {
  const now = new Date();
  return trx
    .updateTable('tasks')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirstOrThrow();
}
