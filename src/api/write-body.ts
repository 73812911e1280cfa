import { z } from 'zod';
import { RATE_SCALE } from '../money/money.ts';
import { NUL_MESSAGE, nulPaths } from '../stored-values.ts';
import { refineDecimal } from '../value-schemas.ts';
import { validationFailed } from './errors.ts';
import { JsonNumber } from './json-number.ts';
import { decimalPattern, documentAs } from '../schema-doc.ts';

// Body building blocks of the write endpoints (docs/contract.md, "Writes"). Bodies come from the
// lossless JSON parser, so a JSON number arrives as a JsonNumber holding its literal. Ids, dates,
// timestamps and currencies are the primitives of value-schemas.ts.

/** Text where an empty (or blank) string means null (docs/contract.md, "Client writes"). */
export function optionalText(max: number) {
  return z
    .union([z.string().max(max, `must be at most ${max} characters`), z.null()])
    .transform((v) => (v === null || v.trim() === '' ? null : v));
}

/**
 * Required text, trimmed, 1..max characters. Documented with its bounds: the document shows
 * a transform's input, which here is any string.
 */
export function requiredText(max: number) {
  return documentAs(
    z
      .string({ error: 'is required, as text' })
      .transform((v) => v.trim())
      .pipe(z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`)),
    { type: 'string', minLength: 1, maxLength: max },
  );
}

/**
 * A decimal as plain text (`"150"`, `"150.5"`, `"-3.25"`): no exponent, sign or blanks, at
 * most `maxScale` decimals. `numbers` also takes a JSON number, read from its literal.
 */
export function decimalInput(options: { maxScale?: number; numbers?: boolean } = {}) {
  const maxScale = options.maxScale ?? RATE_SCALE;
  const accepted = options.numbers
    ? z.union([z.string(), z.instanceof(JsonNumber)], {
        error: 'must be a decimal string or number',
      })
    : z.string({ error: 'must be a decimal string such as "150.00"' });
  const schema = accepted
    .transform((v) => (v instanceof JsonNumber ? v.text : v))
    .superRefine(refineDecimal(maxScale));
  const text = { type: 'string', pattern: decimalPattern(maxScale) };
  return documentAs(schema, options.numbers ? { anyOf: [text, { type: 'number' }] } : text);
}

/** A whole number written as a JSON number. */
export const integerInput = documentAs(
  z.instanceof(JsonNumber, { error: 'must be a whole number' }).transform((v, ctx) => {
    if (!/^-?\d{1,15}$/.test(v.text)) {
      ctx.addIssue({ code: 'custom', message: 'must be a whole number' });
      return z.NEVER;
    }
    return Number(v.text);
  }),
  { type: 'integer' },
);

/**
 * Whether a parsed body is a JSON object. Not `typeof body === 'object'`: the lossless parser
 * makes a JSON number a JsonNumber, an object too, and a body `1` would read as an object
 * without fields (an empty PATCH). JSON objects are plain objects; nothing else is.
 */
function isJsonObject(body: unknown): body is Record<string, unknown> {
  if (typeof body !== 'object' || body === null) return false;
  return Object.getPrototypeOf(body) === Object.prototype;
}

/**
 * Parses a write body, or throws 422 `validation_failed` naming each bad field. Text holding
 * U+0000 is refused wherever it is in the body (`tags.1`), unknown fields included: the store
 * cannot hold it, and one check here covers every field of every write.
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  if (!isJsonObject(body)) throw validationFailed({ body: 'must be a JSON object' });
  // The names come from the body: no prototype, so `__proto__` is a field like any other.
  const fields = Object.create(null) as Record<string, string>;
  for (const path of nulPaths(body)) fields[path.join('.')] ??= NUL_MESSAGE;
  const parsed = schema.safeParse(body);
  if (parsed.success && Object.keys(fields).length === 0) return parsed.data;
  for (const issue of parsed.error?.issues ?? []) {
    const name = issue.path.length > 0 ? issue.path.join('.') : 'body';
    fields[name] ??= issue.message;
  }
  throw validationFailed(fields);
}
