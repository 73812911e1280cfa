import { z } from 'zod';

// What the stores can hold, as every edge checks it: API bodies and query filters, the
// snapshot importer. sql/postgres/0007_storable_values.sql holds the store to the same rules,
// so a row written by another tool cannot reach the sync either.

/**
 * Dates and timestamps are kept to years 0001-9999: PostgreSQL stores year 0 as 1 BC (which
 * the read model's sync cannot read back) and later years as five digits, which neither
 * ISO 8601's basic form nor a JS Date's toISOString writes as a plain date.
 */
export const FIRST_DAY = '0001-01-01';
export const LAST_DAY = '9999-12-31';
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const END_INSTANT = Date.parse('+010000-01-01T00:00:00Z');

export const DATE_RANGE_MESSAGE = `must be from ${FIRST_DAY} to ${LAST_DAY}`;
export const INSTANT_RANGE_MESSAGE = `must be from ${FIRST_DAY}T00:00:00Z to ${LAST_DAY}T23:59:59Z`;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DD` naming a day that exists (no 2026-02-30), in years 0001-9999. */
export function isStorableDate(text: string): boolean {
  if (text.length !== 10 || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0);
}

/** An instant (milliseconds since 1970) in years 0001-9999 UTC; NaN is not. */
export function isStorableInstant(epochMs: number): boolean {
  return epochMs >= FIRST_INSTANT && epochMs < END_INSTANT;
}

/**
 * A timestamp text whose date part exists and whose instant is storable. Its form is checked
 * by the caller; this only adds what Date.parse lets through (it rolls 2026-02-30 over to
 * March) and the year range, taken in UTC (0001-01-01T00:30+01:00 is in year 0).
 */
export function isStorableTimestamp(text: string): boolean {
  return isStorableDate(text.slice(0, 10)) && isStorableInstant(Date.parse(text));
}

/** A date `YYYY-MM-DD` that exists, in years 0001-9999; `error` is the message for its form. */
export function storableDate(error?: string) {
  return z.iso
    .date({ abort: true, ...(error === undefined ? {} : { error }) })
    .refine(isStorableDate, DATE_RANGE_MESSAGE);
}

/** An ISO 8601 timestamp with its offset (`Z` or `+hh:mm`), in years 0001-9999 UTC. */
export function storableTimestamp(error?: string) {
  return z.iso
    .datetime({ offset: true, abort: true, ...(error === undefined ? {} : { error }) })
    .refine(isStorableTimestamp, INSTANT_RANGE_MESSAGE);
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000 (an insert fails with 22021 or 22P05), so no
 * text with it is accepted anywhere.
 */
export const NUL_MESSAGE = 'must not contain the character U+0000 (NUL)';

/**
 * The path of every string inside `value` (object keys and values, array elements, at any
 * depth) that holds U+0000, as zod writes paths: `["tags", 1]`. Keys count too, since a
 * jsonb column stores them.
 */
export function nulPaths(value: unknown): (string | number)[][] {
  // Checked for every imported record: look first, and build paths only when there is one.
  return containsNul(value) ? collectNulPaths(value, []) : [];
}

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(containsNul);
  for (const [key, item] of Object.entries(value))
    if (key.includes('\u0000') || containsNul(item)) return true;
  return false;
}

function collectNulPaths(value: unknown, path: (string | number)[]): (string | number)[][] {
  if (typeof value === 'string') return value.includes('\u0000') ? [path] : [];
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => collectNulPaths(item, [...path, i]));
  return Object.entries(value).flatMap(([key, item]) =>
    key.includes('\u0000') ? [[...path, key]] : collectNulPaths(item, [...path, key]),
  );
}
