import { z } from 'zod';
import { isoTimestamp } from '../value-schemas.ts';
import { answersAsTable } from './table-answer.ts';

// Shapes shared by the API's records (docs/contract.md, "Records"); their values are
// the primitives of value-schemas.ts.

export const timestamps = {
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  deletedAt: isoTimestamp.nullable(),
};

/** `{ data: [...], pagination }` of every list; its rows are `data` in the table form. */
export function listResponse<T extends z.ZodType>(record: T) {
  return answersAsTable(
    z.object({
      data: z.array(record),
      pagination: z.object({ limit: z.int(), nextCursor: z.string().nullable() }),
    }),
    ['data'],
  );
}

export function singleResponse<T extends z.ZodType>(record: T) {
  return z.object({ data: record });
}
