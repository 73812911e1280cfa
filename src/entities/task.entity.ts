import { z } from 'zod';
import { snapshotName, snapshotNonNegative } from '../value-schemas.ts';
import { TASK_PRIORITIES, TASK_STATUSES } from '../value-sets.ts';
import {
  audit,
  boolean,
  date,
  decimal,
  defineEntity,
  filled,
  oneOf,
  text,
  texts,
  uuid,
  uuids,
} from './entity.ts';

/** A task (docs/contract.md, "Task" and "Value sets"), over `tasks r`. */
export const taskEntity = defineEntity(
  'r',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id'),
    projectId: uuid(),
    name: text().inSnapshot(snapshotName),
    description: text().nullable(),
    status: oneOf(TASK_STATUSES).byDefault('TODO'),
    priority: oneOf(TASK_PRIORITIES).byDefault('LOW'),
    billable: boolean().byDefault(true),
    estimatedHours: decimal().inSnapshot(snapshotNonNegative()).nullable(),
    assigneeIds: uuids().byDefault([]),
    tags: texts().inSnapshot(z.array(z.string().max(50)).max(50).default([])),
    startDate: date().nullable(),
    dueDate: date().nullable(),
    endDate: date().nullable(),
    ...audit,
  },
  [
    'id',
    filled('orgId'),
    'projectId',
    'name',
    'description',
    'status',
    'priority',
    'billable',
    'estimatedHours',
    'assigneeIds',
    'tags',
    'startDate',
    'dueDate',
    'endDate',
    'createdAt',
    'updatedAt',
    'deletedAt',
  ],
);
