import { z } from 'zod';
import { isoTimestamp } from '../value-schemas.ts';

// Shapes shared by the API's records (api-v1 "Resources and their fields"); their values are
// the primitives of value-schemas.ts.

export const timestamps = {
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  deletedAt: isoTimestamp.nullable(),
};

/** `{ data: [...], pagination }` of every list. */
export function listResponse<T extends z.ZodType>(record: T) {
  return z.object({
    data: z.array(record),
    pagination: z.object({ limit: z.int(), nextCursor: z.string().nullable() }),
  });
}

export function singleResponse<T extends z.ZodType>(record: T) {
  return z.object({ data: record });
}
