import { audit, boolean, date, defineEntity, integer, text, timestamp, uuid } from './entity.ts';

/** A time entry (api-v1 "Time entry"), over `time_entries r`. */
export const timeEntryEntity = defineEntity('r', {
  id: uuid(),
  orgId: uuid().column('workspace_id'),
  userId: uuid(),
  projectId: uuid(),
  taskId: uuid().nullable(),
  invoiceId: uuid().nullable(),
  durationSeconds: integer(),
  billable: boolean(),
  isRunning: boolean(),
  note: text().nullable(),
  entryDate: date(),
  startedAt: timestamp().nullable(),
  stoppedAt: timestamp().nullable(),
  ...audit,
});
