import { currencyScale } from '../money/currencies.ts';
import { BILL_LINE_KINDS, INVOICE_LINE_KINDS } from '../value-sets.ts';
import { RECORD_TYPES, type RecordOf } from './records.ts';

/**
 * A fast path past the zod schemas for the records a large snapshot is made of: time
 * entries and the lines of invoices and bills (all but a few thousand of the rows of a
 * generated workspace). zod takes about 25 µs for a time entry (its transforms and
 * refinements), these checks about 1 µs.
 *
 * They accept only the plain form the exporter and the generator write: lower-case uuids,
 * timestamps as `2026-10-01T08:15:00.000Z`, dates and timestamps in the years 1000-9999,
 * text without control characters or surrogates, decimals with at most 14 + 4 digits. For
 * such a record they return exactly what the record's schema returns; for anything else
 * they return undefined and the schema decides, so every error message is the schema's
 * and every rule stays the schema's (plain-records.test.ts compares the two).
 */
export function plainRecord(type: string, data: Record<string, unknown>): unknown {
  switch (type) {
    case 'timeEntry':
      return plainTimeEntry(data);
    case 'invoice':
      return plainWithLines('invoice', data, plainInvoiceLine);
    case 'bill':
      return plainWithLines('bill', data, plainBillLine);
    default:
      return undefined;
  }
}

type TimeEntry = RecordOf<'timeEntry'>;
type Invoice = RecordOf<'invoice'>;
type Bill = RecordOf<'bill'>;

export function plainTimeEntry(d: Record<string, unknown>): TimeEntry | undefined {
  const { billable = true, isRunning = false, note = null } = d;
  const startedAt = d.startedAt ?? null;
  const stoppedAt = d.stoppedAt ?? null;
  if (
    !isUuid(d.id) ||
    !isUuid(d.userId) ||
    !isUuid(d.projectId) ||
    !isUuidOrNull(d.taskId) ||
    !isUuidOrNull(d.invoiceId) ||
    !isDate(d.entryDate) ||
    !isInt4(d.durationSeconds) ||
    typeof billable !== 'boolean' ||
    typeof isRunning !== 'boolean' ||
    !isTimestampOrNull(startedAt) ||
    !isTimestampOrNull(stoppedAt) ||
    !isTextOrNull(note) ||
    !hasPlainAudit(d) ||
    (startedAt !== null && stoppedAt !== null && stoppedAt < startedAt)
  ) {
    return undefined;
  }
  // createdAt and updatedAt stay undefined when absent (the schema leaves them out).
  return {
    id: d.id,
    userId: d.userId,
    projectId: d.projectId,
    taskId: d.taskId ?? null,
    invoiceId: d.invoiceId ?? null,
    entryDate: d.entryDate,
    durationSeconds: d.durationSeconds,
    billable,
    isRunning,
    startedAt,
    stoppedAt,
    note: note === '' ? null : note,
    createdAt: d.createdAt as string | undefined,
    updatedAt: d.updatedAt as string | undefined,
    deletedAt: (d.deletedAt as string | null | undefined) ?? null,
  };
}

/**
 * An invoice or bill whose own fields the schema checks (a few thousand records) and whose
 * lines (millions) take the fast path, with the rules the schema checks on them from the
 * parent: the amount in the parent's currency, a time entry on every TIME line of a bill.
 */
function plainWithLines<T extends 'invoice' | 'bill', L>(
  type: T,
  data: Record<string, unknown>,
  plainLine: (line: Record<string, unknown>, currencyDecimals: number) => L | undefined,
): RecordOf<T> | undefined {
  if (!Array.isArray(data.lines)) return undefined;
  const head = RECORD_TYPES[type].schema.safeParse({ ...data, lines: [] });
  if (!head.success) return undefined;
  const decimals = currencyScale(head.data.currency);
  if (decimals === undefined) return undefined;
  const lines: L[] = [];
  for (const line of data.lines as unknown[]) {
    const plain = isObject(line) ? plainLine(line, decimals) : undefined;
    if (plain === undefined) return undefined;
    lines.push(plain);
  }
  return { ...head.data, lines } as RecordOf<T>;
}

function plainInvoiceLine(
  d: Record<string, unknown>,
  currencyDecimals: number,
): Invoice['lines'][number] | undefined {
  const { description = null, subtitle = null, detail = null, groupLabel = null } = d;
  const quantity = d.quantity ?? null;
  const unitPrice = d.unitPrice ?? null;
  if (
    !isUuid(d.id) ||
    !isOneOf(d.kind, INVOICE_LINE_KINDS) ||
    !isUuidOrNull(d.timeEntryId) ||
    !isUuidOrNull(d.expenseId) ||
    !isUuidOrNull(d.projectId) ||
    !isTextOrNull(description) ||
    !isTextOrNull(subtitle) ||
    !isTextOrNull(detail) ||
    !isTextOrNull(groupLabel) ||
    !isDecimalOrNull(quantity) ||
    !isDecimalOrNull(unitPrice) ||
    !isDecimal(d.amount, currencyDecimals)
  ) {
    return undefined;
  }
  return {
    id: d.id,
    kind: d.kind,
    timeEntryId: d.timeEntryId ?? null,
    expenseId: d.expenseId ?? null,
    projectId: d.projectId ?? null,
    description: description === '' ? null : description,
    subtitle: subtitle === '' ? null : subtitle,
    detail: detail === '' ? null : detail,
    groupLabel: groupLabel === '' ? null : groupLabel,
    quantity,
    unitPrice,
    amount: d.amount,
  };
}

function plainBillLine(
  d: Record<string, unknown>,
  currencyDecimals: number,
): Bill['lines'][number] | undefined {
  const { description = null } = d;
  const workDate = d.workDate ?? null;
  const durationSeconds = d.durationSeconds ?? null;
  const hourlyRate = d.hourlyRate ?? null;
  const quantity = d.quantity ?? null;
  const unitPrice = d.unitPrice ?? null;
  if (
    !isUuid(d.id) ||
    !isOneOf(d.kind, BILL_LINE_KINDS) ||
    !isUuidOrNull(d.timeEntryId) ||
    !isUuidOrNull(d.projectId) ||
    !isUuidOrNull(d.taskId) ||
    !(workDate === null || isDate(workDate)) ||
    !(durationSeconds === null || isInt4(durationSeconds)) ||
    !isDecimalOrNull(hourlyRate) ||
    !isDecimalOrNull(quantity) ||
    !isDecimalOrNull(unitPrice) ||
    !isDecimal(d.amount, currencyDecimals) ||
    !isTextOrNull(description) ||
    // A snapshot object is left to the schema, which copies it.
    (d.sourceSnapshot !== undefined && d.sourceSnapshot !== null) ||
    (d.kind === 'TIME' && (d.timeEntryId ?? null) === null)
  ) {
    return undefined;
  }
  return {
    id: d.id,
    kind: d.kind,
    timeEntryId: d.timeEntryId ?? null,
    projectId: d.projectId ?? null,
    taskId: d.taskId ?? null,
    workDate,
    durationSeconds,
    hourlyRate,
    quantity,
    unitPrice,
    amount: d.amount,
    description: description === '' ? null : description,
    sourceSnapshot: null,
  };
}

const HYPHEN = 45;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const LOWER_A = 97;
const LOWER_F = 102;
const SPACE = 32;
const FIRST_SURROGATE = 0xd800;
const LAST_SURROGATE = 0xdfff;
const DATE = /^[1-9]\d{3}-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^([1-9]\d{3}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
const DECIMAL = /^-?\d{1,14}(?:\.(\d{1,4}))?$/;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A lower-case uuid, checked by hand: the regular expression costs several times more. */
function isUuid(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== HYPHEN) return false;
    } else if (!((c >= DIGIT_0 && c <= DIGIT_9) || (c >= LOWER_A && c <= LOWER_F))) return false;
  }
  return true;
}

function isUuidOrNull(value: unknown): value is string | null | undefined {
  return value === null || value === undefined || isUuid(value);
}

function isDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = DATE.exec(value);
  if (!match) return false;
  const month = Number(match[1]);
  const day = Number(match[2]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]!) return false;
  if (month !== 2 || day !== 29) return true;
  const year = Number(value.slice(0, 4));
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = TIMESTAMP.exec(value);
  return match !== null && isDate(match[1]);
}

function isTimestampOrNull(value: unknown): value is string | null {
  return value === null || isTimestamp(value);
}

function isInt4(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 2_147_483_647;
}

/** Text of at most 10,000 code units without control characters or surrogates. */
function isTextOrNull(value: unknown): value is string | null {
  if (value === null) return true;
  if (typeof value !== 'string' || value.length > 10_000) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < SPACE || (c >= FIRST_SURROGATE && c <= LAST_SURROGATE)) return false;
  }
  return true;
}

function isDecimal(value: unknown, maxDecimals = 4): value is string {
  if (typeof value !== 'string') return false;
  const match = DECIMAL.exec(value);
  return match !== null && (match[1]?.length ?? 0) <= maxDecimals;
}

function isDecimalOrNull(value: unknown): value is string | null {
  return value === null || isDecimal(value);
}

function isOneOf<T extends string>(value: unknown, values: readonly T[]): value is T {
  return (values as readonly unknown[]).includes(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** createdAt and updatedAt absent or plain timestamps, deletedAt null, absent or plain. */
function hasPlainAudit(d: Record<string, unknown>): boolean {
  return (
    (d.createdAt === undefined || isTimestamp(d.createdAt)) &&
    (d.updatedAt === undefined || isTimestamp(d.updatedAt)) &&
    (d.deletedAt === undefined || isTimestampOrNull(d.deletedAt))
  );
}
