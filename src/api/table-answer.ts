import { z } from 'zod';

// Which JSON answers also have a table form, an Arrow IPC stream (src/http/arrow-answer.ts):
// a list's `data`, or the main row array of a report. The mark is on the route's declared 200
// schema, so the app, the OpenAPI document and the tests read one declaration and no route
// writes Arrow code.

const TABLE_ROWS = new WeakMap<object, readonly string[]>();

/**
 * Marks `schema` (a route's 200 answer) as answering a table too: its rows are the array of
 * objects at `rows` (`['data']`, `['data', 'members']`); the rest of the answer travels beside
 * them. Throws at startup when `rows` names no array of objects.
 */
export function answersAsTable<T extends z.ZodObject>(schema: T, rows: readonly string[]): T {
  let at: z.ZodType = schema;
  for (const key of rows) {
    const shape = at instanceof z.ZodObject ? (at.shape as Record<string, z.ZodType>) : undefined;
    if (shape?.[key] === undefined) throw new Error(`no field ${rows.join('.')} in the answer`);
    at = shape[key];
  }
  if (!(at instanceof z.ZodArray) || !(at.element instanceof z.ZodObject))
    throw new Error(`${rows.join('.')} is not an array of objects`);
  TABLE_ROWS.set(schema, rows);
  return schema;
}

/** The path of the rows of an answer that has a table form, else undefined. */
export function tableRows(schema: unknown): readonly string[] | undefined {
  return typeof schema === 'object' && schema !== null ? TABLE_ROWS.get(schema) : undefined;
}
