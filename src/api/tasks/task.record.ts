import type { z } from 'zod';
import { rowToRecord } from '../entity-record.ts';
import { taskEntity } from '../../entities/task.entity.ts';

/** A task as the API answers it (docs/contract.md, "Task" and "Value sets"). */
export const taskRecord = taskEntity.record;
export type TaskRecord = z.infer<typeof taskRecord>;

export const taskRowToRecord: (row: Record<string, unknown>) => TaskRecord =
  rowToRecord(taskEntity);
