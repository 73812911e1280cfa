import { z } from 'zod';
import { decimalTextProblem, RATE_SCALE } from '../money/money.ts';
import { validationFailed } from './errors.ts';
import { JsonNumber } from './json-body.ts';

// Body building blocks of the write endpoints (decisions 6). Bodies come from the lossless
// JSON parser, so a JSON number arrives as a JsonNumber holding its literal.

/** Text where an empty (or blank) string means null (api-v1 "Empty strings are coerced to null"). */
export function optionalText(max: number) {
  return z
    .union([z.string().max(max, `must be at most ${max} characters`), z.null()])
    .transform((v) => (v === null || v.trim() === '' ? null : v));
}

/** Required text, trimmed, 1..max characters. */
export function requiredText(max: number) {
  return z
    .string({ error: 'is required, as text' })
    .transform((v) => v.trim())
    .pipe(z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`));
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
  return accepted
    .transform((v) => (v instanceof JsonNumber ? v.text : v))
    .superRefine((v, ctx) => {
      const problem = decimalTextProblem(v, maxScale);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

/** A whole number written as a JSON number. */
export const integerInput = z
  .instanceof(JsonNumber, { error: 'must be a whole number' })
  .transform((v, ctx) => {
    if (!/^-?\d{1,15}$/.test(v.text)) {
      ctx.addIssue({ code: 'custom', message: 'must be a whole number' });
      return z.NEVER;
    }
    return Number(v.text);
  });

export const uuidInput = z.uuid({ error: 'must be a UUID' });

/** A calendar date `YYYY-MM-DD` that exists. */
export const dateInput = z.iso.date({ error: 'must be a date (YYYY-MM-DD)' });

/** An ISO 8601 timestamp with its offset. */
export const timestampInput = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 timestamp',
});

export const currencyInput = z
  .string({ error: 'must be an ISO 4217 currency code' })
  .transform((v) => v.trim().toUpperCase());

/** Parses a write body, or throws 422 `validation_failed` naming each bad field. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw validationFailed({ body: 'must be a JSON object' });
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const name = issue.path.length > 0 ? issue.path.join('.') : 'body';
    fields[name] ??= issue.message;
  }
  throw validationFailed(fields);
}
