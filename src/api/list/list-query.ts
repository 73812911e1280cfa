import { z } from 'zod';
import { decimalTextProblem, RATE_SCALE } from '../../money/money.ts';
import { FIRST_DAY, isStorableDate, LAST_DAY, storableTimestamp } from '../../stored-values.ts';
import { validationFailed } from '../errors.ts';
import { decimalPattern, documentAs, inputJsonSchema } from '../../schema-doc.ts';

// Query-string building blocks of the list endpoints (docs/contract.md, "Lists").
// Fastify hands a repeated parameter over as an array and every value as text.

/** A parameter that may appear once: a repeated one is refused rather than one copy picked. */
export function once<T extends z.ZodType<unknown, string>>(schema: T) {
  // Documented as the text `schema` takes (an enum, a date, a uuid), not as any string.
  return documentAs(z.string({ error: 'must be given once' }).pipe(schema), () =>
    inputJsonSchema(schema),
  );
}

/** The most values a multi-value filter takes, counted as given. */
const MAX_FILTER_VALUES = 25;

/**
 * A repeated parameter, read as OR: at most 25 values, counted as given (a value sent twice
 * counts twice, so the limit bounds what a request may send, not what it means), then
 * duplicates dropped and the rest sorted, the normal form a cursor binds.
 */
export function many<T extends z.ZodType<string, string>>(item: T) {
  const schema = z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .pipe(
      z
        .array(item)
        .max(MAX_FILTER_VALUES, `takes at most ${MAX_FILTER_VALUES} values, repeats included`),
    )
    .transform((values: string[]) => [...new Set(values)].sort());
  return documentAs(schema, () => ({
    type: 'array',
    items: inputJsonSchema(item),
    maxItems: MAX_FILTER_VALUES,
    description: `Repeat the parameter for several values (any of them matches); at most ${MAX_FILTER_VALUES}, repeats included.`,
  }));
}

const TRUE = ['true', '1', 'yes'];
const FALSE = ['false', '0', 'no'];

/** A boolean written as true/false, 1/0 or yes/no (any case). */
export const booleanText = documentAs(
  once(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .refine((v) => TRUE.includes(v) || FALSE.includes(v), 'must be true, false, 1, 0, yes or no')
      .transform((v) => TRUE.includes(v)),
  ),
  { type: 'boolean', description: 'true or false (also 1/0, yes/no, in any case).' },
);

/**
 * One end of a date range, as microseconds since 1970 UTC. A plain date is UTC midnight;
 * as an upper bound it stands for its whole day (docs/contract.md, "Filters", rules 2-3).
 */
export interface RangeBound {
  epochMicros: string;
  /** Upper bounds of a plain date exclude the next midnight; everything else is inclusive. */
  exclusive: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const timestamp = storableTimestamp();

function rangeBound(end: 'from' | 'to') {
  return documentAs(rangeBoundText(end), {
    anyOf: [
      { type: 'string', format: 'date' },
      { type: 'string', format: 'date-time' },
    ],
  });
}

function rangeBoundText(end: 'from' | 'to') {
  return once(
    z
      .string()
      .refine(
        (v) => isStorableDate(v) || timestamp.safeParse(v).success,
        `must be a date (YYYY-MM-DD) or an ISO 8601 timestamp that exists, from ${FIRST_DAY} to ${LAST_DAY}`,
      )
      .transform((v): RangeBound => {
        if (!DATE.test(v)) return { epochMicros: isoToMicros(v), exclusive: false };
        const midnight = Date.parse(`${v}T00:00:00Z`);
        if (end === 'from') return { epochMicros: `${midnight}000`, exclusive: false };
        return { epochMicros: `${midnight + 86_400_000}000`, exclusive: true };
      }),
  );
}

/** Microseconds since 1970 of an ISO timestamp, keeping digits below the millisecond. */
function isoToMicros(text: string): string {
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
  const micros = BigInt(Date.parse(text.replace(/\.\d+/, ''))) * 1000n;
  return String(micros + BigInt(fraction.padEnd(6, '0').slice(0, 6)));
}

/** `<field>From` and `<field>To` for each field. */
export function dateRanges<const F extends string>(fields: readonly F[]) {
  const shape: Record<string, z.ZodOptional<ReturnType<typeof rangeBound>>> = {};
  for (const field of fields) {
    shape[`${field}From`] = rangeBound('from').optional();
    shape[`${field}To`] = rangeBound('to').optional();
  }
  return shape as { [K in `${F}From` | `${F}To`]: z.ZodOptional<ReturnType<typeof rangeBound>> };
}

/**
 * An inclusive money bound: a plain decimal string (docs/contract.md, "Filters" and
 * "Money on write").
 */
export const moneyBound = documentAs(
  once(
    z.string().superRefine((v, ctx) => {
      const problem = decimalTextProblem(v, RATE_SCALE);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ),
  { type: 'string', pattern: decimalPattern(RATE_SCALE) },
);

export const limitParam = documentAs(
  once(
    z
      .string()
      .regex(/^\d{1,4}$/, 'must be a whole number from 1 to 200')
      .transform(Number)
      .pipe(z.number().min(1, 'must be from 1 to 200').max(200, 'must be from 1 to 200')),
  ),
  { type: 'integer', minimum: 1, maximum: 200, default: 50 },
);

export interface SortOrder {
  field: string;
  descending: boolean;
}

/** `field` or `-field`, among `fields`; `relevance` is always best-first. */
export function sortParam(fields: readonly string[]) {
  const orders = fields.flatMap((f) => (f === 'relevance' ? [f] : [f, `-${f}`]));
  return documentAs(sortText(fields), { type: 'string', enum: orders });
}

function sortText(fields: readonly string[]) {
  return once(
    z.string().transform((value, ctx): SortOrder => {
      const descending = value.startsWith('-');
      const field = descending ? value.slice(1) : value;
      if (!fields.includes(field)) {
        ctx.addIssue({ code: 'custom', message: `must be one of ${fields.join(', ')}` });
        return z.NEVER;
      }
      if (field === 'relevance' && descending) {
        ctx.addIssue({ code: 'custom', message: 'relevance is always best-first: use relevance' });
        return z.NEVER;
      }
      return { field, descending };
    }),
  );
}

export const searchParam = once(z.string().max(200, 'must be at most 200 characters'));
/** Checked by the cursor codec, which refuses any text it did not issue (a too-long one too). */
export const cursorParam = documentAs(once(z.string()), {
  type: 'string',
  description: 'The nextCursor of the previous page, as it was given.',
});

/** A currency code in any case, compared in upper case. */
export const currencyText = documentAs(
  z.string().transform((v) => v.toUpperCase()),
  { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'An ISO 4217 code, in any case.' },
);

/** The parameters every list takes, plus the endpoint's own; unknown parameters are ignored. */
export function listQuery<S extends z.ZodRawShape>(sortFields: readonly string[], filters: S) {
  return z
    .object({
      cursor: cursorParam.optional(),
      limit: limitParam.optional(),
      sort: sortParam(sortFields).optional(),
      search: searchParam.optional(),
      ...filters,
    })
    .superRefine((query, ctx) => {
      const { sort, search } = query as { sort?: SortOrder; search?: string };
      if (sort?.field === 'relevance' && !search?.trim())
        ctx.addIssue({ code: 'custom', path: ['sort'], message: 'relevance needs a search' });
    });
}

/** Parses a query with `schema`, or throws 422 `validation_failed` naming each bad parameter. */
export function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.output<T> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const name = String(issue.path[0] ?? 'query');
    fields[name] ??= issue.message;
  }
  throw validationFailed(fields);
}
