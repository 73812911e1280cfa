import { z } from 'zod';
import { bool, integer, text, timestamp } from '../record-values.ts';
import { timestamps } from '../schema-parts.ts';
import { isoDate, isoTimestamp, uuid } from '../../value-schemas.ts';

/** A time entry as the API answers it (api-v1 "Time entry"). */
export const timeEntryRecord = z.object({
  id: uuid,
  orgId: uuid,
  userId: uuid,
  projectId: uuid,
  taskId: uuid.nullable(),
  invoiceId: uuid.nullable(),
  durationSeconds: z.int(),
  billable: z.boolean(),
  isRunning: z.boolean(),
  note: z.string().nullable(),
  entryDate: isoDate,
  startedAt: isoTimestamp.nullable(),
  stoppedAt: isoTimestamp.nullable(),
  ...timestamps,
});
export type TimeEntryRecord = z.infer<typeof timeEntryRecord>;

/** A time entry row (snake_case columns, as PostgreSQL returns them) to its record. */
export function timeEntryRowToRecord(row: Record<string, unknown>): TimeEntryRecord {
  return {
    id: text(row.id)!,
    orgId: text(row.workspace_id)!,
    userId: text(row.user_id)!,
    projectId: text(row.project_id)!,
    taskId: text(row.task_id),
    invoiceId: text(row.invoice_id),
    durationSeconds: integer(row.duration_seconds)!,
    billable: bool(row.billable),
    isRunning: bool(row.is_running),
    note: text(row.note),
    entryDate: text(row.entry_date)!,
    startedAt: timestamp(row.started_at),
    stoppedAt: timestamp(row.stopped_at),
    createdAt: timestamp(row.created_at)!,
    updatedAt: timestamp(row.updated_at)!,
    deletedAt: timestamp(row.deleted_at),
  };
}
