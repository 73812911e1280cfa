import { z } from 'zod';
import { isKnownCurrency } from './money/currencies.ts';
import { decimalTextProblem, decimalTextSign, RATE_SCALE } from './money/money.ts';
import {
  FIRST_DAY,
  isStorableDate,
  isStorableTimestamp,
  LAST_DAY,
  storableDate,
  storableTimestamp,
} from './stored-values.ts';

// The value primitives of every edge, defined once: the API's records (what it answers), its
// write bodies and query filters (what it takes), and the snapshot's records (what an import
// takes). What a store can hold is stored-values.ts; these are the zod schemas over it. The
// snapshot has variants of its own because its contract differs
// (docs/contract.md, "Workspace snapshot"): it takes what other tools write (a UUID in any case and
// version, a timestamp without seconds or with a `+hhmm` zone) and normalises it, with its own
// messages.

/** An RFC 9562 UUID, as the API answers and takes ids. */
export const uuid = z.uuid({ error: 'must be a UUID' });

/** A calendar date `YYYY-MM-DD` that exists, in years 0001-9999. */
export const isoDate = storableDate('must be a date (YYYY-MM-DD)');

/** An ISO 8601 timestamp with its offset, in years 0001-9999 UTC. */
export const isoTimestamp = storableTimestamp('must be an ISO 8601 timestamp');

/** A currency code as the API answers it. */
export const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code');

/** A decimal as the API answers it (amounts, rates, tax rates): text, never a JSON number. */
export const decimalText = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string');
/** An amount: a decimal string with its currency's scale. */
export const moneyText = decimalText;

/**
 * The rule of every decimal an edge takes as text (`"150"`, `"-3.25"`): no exponent, blanks or
 * `+`, at most `maxScale` decimals; the issue names what is wrong.
 */
export function refineDecimal(maxScale: number) {
  return (text: string, ctx: z.RefinementCtx): void => {
    const problem = decimalTextProblem(text, maxScale);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  };
}

const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** A snapshot's UUID: any case and version, kept lower-case as PostgreSQL writes it. */
export const snapshotUuid = z
  .string()
  .regex(UUID_TEXT, 'must be a UUID')
  .transform((s) => s.toLowerCase());

/** A snapshot's date: as `isoDate`, with one message for its form and its range. */
export const snapshotDate = z
  .string()
  .refine(
    isStorableDate,
    `must be a date YYYY-MM-DD that exists, from ${FIRST_DAY} to ${LAST_DAY}`,
  );

const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/;
/** A snapshot's timestamp: seconds optional, any zone form; kept as ISO 8601 UTC. */
export const snapshotTimestamp = z
  .string()
  .refine(
    (s) => TIMESTAMP_TEXT.test(s) && isStorableTimestamp(s),
    `must be an ISO 8601 timestamp with a zone, from ${FIRST_DAY} to ${LAST_DAY} UTC`,
  )
  .transform((s) => new Date(s).toISOString());

/** A snapshot's currency: a code the money module knows (its scale is needed for amounts). */
export const snapshotCurrency = z
  .string()
  .refine((c) => isKnownCurrency(c), 'must be an ISO 4217 currency code (upper case)');

/** A snapshot's decimal with at most `maxScale` decimals; a currency's scale is checked apart. */
export const snapshotDecimal = (maxScale = RATE_SCALE) =>
  z.string().superRefine(refineDecimal(maxScale));

/** The longest text a snapshot's free-text field holds, in UTF-16 code units. */
export const SNAPSHOT_TEXT_MAX = 10_000;

/**
 * The longest JSON object a snapshot's field holds, in UTF-16 code units of its compact form.
 * The store bounds the form PostgreSQL prints, which adds a space after each colon and comma,
 * at twice this (sql/postgres/0010_text_lengths.sql).
 */
export const SNAPSHOT_JSON_MAX = 50_000;

/** A snapshot's text: at most SNAPSHOT_TEXT_MAX code units. */
export const snapshotText = z.string().max(SNAPSHOT_TEXT_MAX);

/** A snapshot's document number (invoice, bill): 1-100 characters. */
export const snapshotNumber = z.string().min(1).max(100);

/** A snapshot's name (user, client, project, task, payee): trimmed, 1-200 characters. */
export const snapshotName = z.string().trim().min(1).max(200);

/** A snapshot's decimal that must not be negative (rates, budgets, hours). */
export const snapshotNonNegative = (maxScale = RATE_SCALE) =>
  snapshotDecimal(maxScale).refine((t) => decimalTextSign(t) >= 0, 'must not be negative');

/** A whole number a PostgreSQL integer holds, not negative (durations). */
export const snapshotCount = z.number().int().min(0).max(2_147_483_647);

/** A snapshot value that may be null or left out: both are null. */
export const snapshotOrNull = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((v) => v ?? null);

/** Snapshot text that may be null, empty or left out: all three are null. */
export const snapshotEmptyAsNull = <T extends z.ZodType<string>>(schema: T) =>
  schema.nullish().transform((v) => (v === '' || v === undefined ? null : v));
