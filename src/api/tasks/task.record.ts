import { z } from 'zod';
import { bool, decimal, strings, text, timestamp } from '../record-values.ts';
import { timestamps } from '../schema-parts.ts';
import { decimalText, isoDate, uuid } from '../../value-schemas.ts';
import { TASK_PRIORITIES, TASK_STATUSES } from '../../value-sets.ts';

/** A task as the API answers it (api-v1 "Task", decisions 4). */
export const taskRecord = z.object({
  id: uuid,
  orgId: uuid,
  projectId: uuid,
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(TASK_STATUSES),
  priority: z.enum(TASK_PRIORITIES),
  billable: z.boolean(),
  estimatedHours: decimalText.nullable(),
  assigneeIds: z.array(uuid),
  tags: z.array(z.string()),
  startDate: isoDate.nullable(),
  dueDate: isoDate.nullable(),
  endDate: isoDate.nullable(),
  ...timestamps,
});
export type TaskRecord = z.infer<typeof taskRecord>;

export function taskRowToRecord(row: Record<string, unknown>): TaskRecord {
  return {
    id: text(row.id)!,
    orgId: text(row.workspace_id)!,
    projectId: text(row.project_id)!,
    name: text(row.name)!,
    description: text(row.description),
    status: text(row.status) as TaskRecord['status'],
    priority: text(row.priority) as TaskRecord['priority'],
    billable: bool(row.billable),
    estimatedHours: decimal(row.estimated_hours),
    assigneeIds: strings(row.assignee_ids),
    tags: strings(row.tags),
    startDate: text(row.start_date),
    dueDate: text(row.due_date),
    endDate: text(row.end_date),
    createdAt: timestamp(row.created_at)!,
    updatedAt: timestamp(row.updated_at)!,
    deletedAt: timestamp(row.deleted_at),
  };
}
