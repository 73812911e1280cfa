import { z } from 'zod';
import { decimalInput, optionalText, parseBody, requiredText } from '../write-body.ts';
import { isoDate, uuid } from '../../value-schemas.ts';
import { TASK_PRIORITIES, TASK_STATUSES } from '../../value-sets.ts';

const fields = {
  name: requiredText(200),
  description: optionalText(10_000).optional(),
  status: z.enum(TASK_STATUSES, { error: `must be one of ${TASK_STATUSES.join(', ')}` }).optional(),
  priority: z
    .enum(TASK_PRIORITIES, { error: `must be one of ${TASK_PRIORITIES.join(', ')}` })
    .optional(),
  billable: z.boolean({ error: 'must be true or false' }).optional(),
  estimatedHours: decimalInput()
    .refine((v) => !v.startsWith('-'), 'must not be negative')
    .nullable()
    .optional(),
  assigneeIds: z
    .array(uuid, { error: 'must be a list of user ids' })
    .max(50, 'takes at most 50 assignees')
    .transform((ids) => [...new Set(ids)])
    .optional(),
  tags: z
    .array(z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'), {
      error: 'must be a list of strings',
    })
    .max(50, 'takes at most 50 tags')
    .transform((tags) => [...new Set(tags)])
    .optional(),
  startDate: isoDate.nullable().optional(),
  dueDate: isoDate.nullable().optional(),
  endDate: isoDate.nullable().optional(),
};

/**
 * POST /tasks body: `projectId` and `name` required (docs/contract.md, "Task writes" and
 * "Value sets").
 */
export const taskCreateInput = z.object({ projectId: uuid, ...fields });
/** PATCH /tasks/{id} body: every field optional. */
export const taskUpdateInput = z.object({ projectId: uuid.optional(), ...fields }).partial();

export type TaskCreateInput = z.output<typeof taskCreateInput>;
export type TaskUpdateInput = z.output<typeof taskUpdateInput>;

export const parseTaskUpdate = (body: unknown) => parseBody(taskUpdateInput, body);
