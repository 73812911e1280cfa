import { z } from 'zod';
import { storableDate, storableTimestamp } from '../stored-values.ts';

// Shapes shared by the API's records (api-v1 "Resources and their fields").
export const uuid = z.uuid();
export const isoDate = storableDate();
export const isoTimestamp = storableTimestamp();
/** Money: a decimal string with the currency's scale, never a JSON number. */
export const moneyText = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string');
export const decimalText = moneyText;
export const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code');

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
