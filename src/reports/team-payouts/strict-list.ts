import type { z } from 'zod';
import { parseQuery } from '../../api/list/list-query.ts';
import { strictQuery } from '../../api/strict-query.ts';

/**
 * Team-payout lists are strict (decisions 7): an unknown or repeated parameter is 422
 * `invalid_query` before any value is read; then values are validated like other lists.
 */
export function parseStrictList<T extends z.ZodObject>(schema: T, query: unknown): z.output<T> {
  const values = strictQuery(query, Object.keys(schema.shape));
  return parseQuery(schema, values);
}
