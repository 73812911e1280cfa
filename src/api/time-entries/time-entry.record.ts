import type { z } from 'zod';
import { timeEntryEntity } from '../../entities/time-entry.entity.ts';
import { rowToRecord } from '../entity-record.ts';

/** A time entry as the API answers it (docs/contract.md, "Time entry"). */
export const timeEntryRecord = timeEntryEntity.record;
export type TimeEntryRecord = z.infer<typeof timeEntryRecord>;

/** A time entry row (snake_case columns, as PostgreSQL returns them) to its record. */
export const timeEntryRowToRecord: (row: Record<string, unknown>) => TimeEntryRecord =
  rowToRecord(timeEntryEntity);
