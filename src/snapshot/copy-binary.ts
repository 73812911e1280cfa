/** Where rows go, per table (the staging tables, or a scratch set in tests). */
export interface RowSink {
  rowsOf(table: string): BinaryCopyRows;
}

/**
 * Rows in PostgreSQL's binary COPY format (one header, then per row a field count and each
 * field as its length and bytes, then a trailer). PostgreSQL takes binary values as they
 * are, where text COPY parses every uuid, date, timestamp and number: 10M time entries
 * load in about a third of the time (docs/import.md). Values arrive checked by the record
 * schemas, so each method encodes and does not validate again.
 */
export class BinaryCopyRows {
  rows = 0;
  private buffer: Buffer;
  private spare: Buffer | undefined;
  private at = 0;
  private markedAt = 0;
  private markedRows = 0;

  constructor(initialBytes = 1 << 16) {
    this.buffer = Buffer.allocUnsafeSlow(initialBytes);
    this.writeHeader();
  }

  /** Bytes written so far (header and rows). */
  get bytes(): number {
    return this.at;
  }

  beginRow(fields: number): void {
    this.rows++;
    this.reserve(2);
    this.int16(fields);
  }

  /** Remembers where the next row starts, for rollback(). */
  mark(): void {
    this.markedAt = this.at;
    this.markedRows = this.rows;
  }

  /** Drops every row written since mark(). */
  rollback(): void {
    this.at = this.markedAt;
    this.rows = this.markedRows;
  }

  null(): void {
    this.reserve(4);
    this.int32(-1);
  }

  bool(value: boolean): void {
    this.reserve(5);
    this.int32(1);
    this.buffer[this.at++] = value ? 1 : 0;
  }

  int4(value: number): void {
    this.reserve(8);
    this.int32(4);
    this.int32(value);
  }

  text(value: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    this.reserve(4 + value.length * 3);
    const length = this.buffer.write(value, this.at + 4, 'utf8');
    this.int32(length);
    this.at += length;
  }

  /** A JSON value for a `jsonb` column: format version 1, then the JSON text. */
  jsonb(value: unknown): void {
    const json = JSON.stringify(value);
    this.reserve(5 + json.length * 3);
    const length = this.buffer.write(json, this.at + 5, 'utf8');
    this.int32(length + 1);
    this.buffer[this.at] = 1;
    this.at += 1 + length;
  }

  /** A uuid written as text (`8-4-4-4-12` hex digits, either case). */
  uuid(value: string): void {
    ascii(value);
    this.writeUuid(scratchView, 0);
  }

  /**
   * A uuid from its text at byte `at` of `text` when that is a lower-case uuid,
   * `8-4-4-4-12` hex digits; false when it is not (the importer's byte path checks as it
   * writes, then rolls the row back).
   */
  lowerCaseUuid(text: DataView, at: number): boolean {
    return (
      this.writeUuid(text, at) === 0 &&
      text.getUint8(at + 8) === MINUS &&
      text.getUint8(at + 13) === MINUS &&
      text.getUint8(at + 18) === MINUS &&
      text.getUint8(at + 23) === MINUS
    );
  }

  /** Text given as its UTF-8 bytes `bytes[start, end)`. */
  utf8(bytes: Uint8Array, start: number, end: number): void {
    const length = end - start;
    this.reserve(4 + length);
    this.int32(length);
    const buffer = this.buffer;
    let at = this.at;
    // A short text is copied faster by hand than through a view of it.
    if (length > 64) buffer.set(bytes.subarray(start, end), at);
    else for (let i = start; i < end; i++) buffer[at++] = bytes[i]!;
    this.at += length;
  }

  /** Bytes given as hex digits, for a `bytea` column. */
  byteaHex(hex: string): void {
    this.reserve(4 + hex.length / 2);
    const length = this.buffer.write(hex, this.at + 4, 'hex');
    this.int32(length);
    this.at += length;
  }

  /** A calendar date `YYYY-MM-DD`. */
  date(value: string): void {
    this.dateOf(digits(value, 0, 4), digits(value, 5, 2), digits(value, 8, 2));
  }

  /** A calendar date given by its parts: days since 2000-01-01. */
  dateOf(year: number, month: number, day: number): void {
    this.reserve(8);
    this.int32(4);
    this.int32(daysSince2000(year, month, day));
  }

  /** An instant written in ISO 8601 with a zone. */
  timestamptz(value: string): void {
    this.timestamptzMillis(
      CANONICAL_TIMESTAMP.test(value) ? millisOfCanonical(value) : Date.parse(value) - MILLIS_2000,
    );
  }

  /** An instant given in whole milliseconds since 2000-01-01T00:00:00Z: as microseconds. */
  timestamptzMillis(millis: number): void {
    this.reserve(12);
    this.int32(8);
    const micros = millis * 1000;
    if (Number.isSafeInteger(micros)) {
      const high = Math.floor(micros / 2 ** 32);
      this.int32(high);
      this.int32(micros - high * 2 ** 32);
    } else {
      // Past about 285 years from 2000 microseconds outgrow a double's exact integers.
      this.at = this.buffer.writeBigInt64BE(BigInt(millis) * 1000n, this.at);
    }
  }

  /**
   * A decimal written as plain text (`-12.5`, checked by the schemas) as PostgreSQL's
   * numeric: base-10000 digits with the weight of the first, a sign and the display scale.
   */
  numeric(value: string): void {
    this.numericText(ascii(value), 0, value.length);
  }

  /** A decimal given as its text `text[start, end)` (checked: `-?digits(.digits)?`). */
  numericText(text: Uint8Array, start: number, end: number): void {
    const negative = text[start] === MINUS;
    let first = negative ? start + 1 : start;
    let wholeEnd = first;
    while (wholeEnd < end && text[wholeEnd] !== DOT) wholeEnd++;
    while (first < wholeEnd && text[first] === ZERO) first++;
    const fractionDigits = wholeEnd < end ? end - wholeEnd - 1 : 0;
    const wholeDigits = wholeEnd - first;
    const wholeGroups = (wholeDigits + 3) >> 2;
    const groups = groupsFor(wholeGroups + ((fractionDigits + 3) >> 2));
    // Four digits a group, aligned on the decimal point: the whole part padded on the left
    // (its first group takes fewer digits), the fraction on the right.
    let count = 0;
    let group = 0;
    let left = wholeDigits - 4 * (wholeGroups - 1);
    for (let i = first; i < wholeEnd; i++) {
      group = group * 10 + text[i]! - ZERO;
      if (--left === 0) {
        groups[count++] = group;
        group = 0;
        left = 4;
      }
    }
    let digitsInGroup = 0;
    for (let i = wholeEnd + 1; i < end; i++) {
      group = group * 10 + text[i]! - ZERO;
      if (++digitsInGroup === 4) {
        groups[count++] = group;
        group = 0;
        digitsInGroup = 0;
      }
    }
    if (digitsInGroup > 0) groups[count++] = group * POWERS_OF_10[4 - digitsInGroup]!;
    // Leading and trailing zero groups are left out; the weight counts from the first kept.
    let from = 0;
    let to = count;
    while (from < to && groups[from] === 0) from++;
    while (to > from && groups[to - 1] === 0) to--;
    const kept = to - from;
    this.reserve(12 + kept * 2);
    this.int32(8 + kept * 2);
    const buffer = this.buffer;
    let at = this.at;
    const weight = kept === 0 ? 0 : wholeGroups - 1 - from;
    const sign = negative && kept > 0 ? NUMERIC_NEGATIVE : 0;
    buffer[at++] = kept >>> 8;
    buffer[at++] = kept;
    buffer[at++] = weight >>> 8;
    buffer[at++] = weight;
    buffer[at++] = sign >>> 8;
    buffer[at++] = sign;
    buffer[at++] = fractionDigits >>> 8;
    buffer[at++] = fractionDigits;
    for (let g = from; g < to; g++) {
      buffer[at++] = groups[g]! >>> 8;
      buffer[at++] = groups[g]!;
    }
    this.at = at;
  }

  uuidArray(values: readonly string[]): void {
    this.array(UUID_OID, values, (v) => this.uuid(v));
  }

  textArray(values: readonly string[]): void {
    this.array(TEXT_OID, values, (v) => this.text(v));
  }

  /** A field encoded before by encodeField(), written as it is. */
  encoded(field: Uint8Array): void {
    this.reserve(field.length);
    const buffer = this.buffer;
    let at = this.at;
    for (let i = 0; i < field.length; i++) buffer[at++] = field[i]!;
    this.at = at;
  }

  /** One field (its length and bytes) as `write` encodes it, for encoded(). */
  static encodeField(write: (rows: BinaryCopyRows) => void): Uint8Array {
    const rows = new BinaryCopyRows(64);
    const start = rows.at;
    write(rows);
    return new Uint8Array(rows.buffer.subarray(start, rows.at));
  }

  /** The rows so far as one complete COPY stream; the buffer starts over, empty. */
  take(): Buffer {
    this.reserve(2);
    this.int16(-1);
    const out = this.buffer.subarray(0, this.at);
    this.buffer = this.spare ?? Buffer.allocUnsafeSlow(this.buffer.length);
    this.spare = undefined;
    this.at = 0;
    this.rows = 0;
    this.writeHeader();
    return out;
  }

  /**
   * Hands back the memory of a COPY stream taken before, once it has been sent: the next
   * take() reuses it instead of asking the system for fresh pages.
   */
  recycle(taken: Buffer): void {
    // Buffers here are never slices of Node's shared pool (allocUnsafeSlow): a taken stream
    // owns its whole memory, which nothing else can be using once it was sent.
    if (taken.byteOffset === 0 && taken.buffer.byteLength === this.buffer.length) {
      this.spare = Buffer.from(taken.buffer);
    }
  }

  /** A one-dimensional array without NULLs; its length is known once its elements are written. */
  private array(
    elementOid: number,
    values: readonly string[],
    write: (value: string) => void,
  ): void {
    this.reserve(24);
    const start = this.at;
    this.at += 4;
    this.int32(values.length === 0 ? 0 : 1);
    this.int32(0);
    this.int32(elementOid);
    if (values.length > 0) {
      this.int32(values.length);
      this.int32(1);
      for (const value of values) write(value);
    }
    const end = this.at;
    this.at = start;
    this.int32(end - start - 4);
    this.at = end;
  }

  /**
   * Writes the 16 bytes of the uuid whose text starts at `at`, its hex digits read four at a
   * time and decoded with carry-free sums (cheaper than looking up each pair); returns 0
   * when every digit is 0-9 or a-f.
   */
  private writeUuid(text: DataView, at: number): number {
    this.reserve(20);
    this.int32(16);
    const buffer = this.buffer;
    let out = this.at;
    let notLowerHex = 0;
    for (let k = 0; k < 8; k++) {
      // Four characters, the first in the low byte. Each byte's top bit after these sums
      // tells whether it is at least '0' (0x30), above '9', at least 'a', above 'f'.
      const w = text.getInt32(at + UUID_WORD_AT[k]!, true);
      const digit = (w + 0x50505050) & ~(w + 0x46464646);
      const letter = (w + 0x1f1f1f1f) & ~(w + 0x19191919);
      notLowerHex |= (w & HIGH_BITS) | (((digit | letter) & HIGH_BITS) ^ HIGH_BITS);
      // A digit's value is its low four bits, a letter's (either case, bit 6 set) nine more.
      const v = (w & 0x0f0f0f0f) + 9 * ((w >>> 6) & 0x01010101);
      buffer[out++] = ((v & 0xff) << 4) | ((v >>> 8) & 0xff);
      buffer[out++] = (((v >>> 16) & 0xff) << 4) | (v >>> 24);
    }
    this.at = out;
    return notLowerHex;
  }

  /** Writes a 32-bit integer at `at` (plain stores: Buffer's writeInt32BE checks its input). */
  private int32(value: number): void {
    const buffer = this.buffer;
    const at = this.at;
    buffer[at] = value >>> 24;
    buffer[at + 1] = value >>> 16;
    buffer[at + 2] = value >>> 8;
    buffer[at + 3] = value;
    this.at = at + 4;
  }

  private int16(value: number): void {
    this.buffer[this.at] = value >>> 8;
    this.buffer[this.at + 1] = value;
    this.at += 2;
  }

  private writeHeader(): void {
    this.reserve(SIGNATURE.length + 8);
    this.at += SIGNATURE.copy(this.buffer, this.at);
    this.int32(0);
    this.int32(0);
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }
}

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const UUID_OID = 2950;
const TEXT_OID = 25;
const NUMERIC_NEGATIVE = 0x4000;
const POWERS_OF_10 = [1, 10, 100, 1000];
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const MILLIS_2000 = Date.UTC(2000, 0, 1);
const HIGH_BITS = 0x80808080 | 0;
/** Where each four hex digits start in `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. */
const UUID_WORD_AT = [0, 4, 9, 14, 19, 24, 28, 32];

/** Room for the base-10000 groups of one numeric (a checked decimal has at most 7). */
let scratchGroups = new Uint16Array(16);

function groupsFor(count: number): Uint16Array {
  if (count > scratchGroups.length) scratchGroups = new Uint16Array(count);
  return scratchGroups;
}

function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

/** Days from 2000-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysSince2000(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468 - 10957;
}

// `2026-10-01T08:15:00.000Z`, the form the schemas normalize every timestamp to.
const CANONICAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function millisOfCanonical(value: string): number {
  return millisSince2000(
    digits(value, 0, 4),
    digits(value, 5, 2),
    digits(value, 8, 2),
    digits(value, 11, 2),
    digits(value, 14, 2),
    digits(value, 17, 2),
    digits(value, 20, 3),
  );
}

/** Milliseconds from 2000-01-01T00:00:00Z to an instant given by its UTC parts. */
export function millisSince2000(
  year: number,
  month: number,
  day: number,
  hours: number,
  minutes: number,
  seconds: number,
  millis: number,
): number {
  return (
    daysSince2000(year, month, day) * 86_400_000 +
    ((hours * 60 + minutes) * 60 + seconds) * 1000 +
    millis
  );
}

/** Room for the characters of a uuid, date or decimal given as a string. */
let scratchText = new Uint8Array(64);
let scratchView = new DataView(scratchText.buffer);

/** The char codes of a checked ASCII text (a uuid, a decimal) as bytes, in a scratch array. */
function ascii(value: string): Uint8Array {
  if (value.length > scratchText.length) {
    scratchText = new Uint8Array(value.length * 2);
    scratchView = new DataView(scratchText.buffer);
  }
  for (let i = 0; i < value.length; i++) scratchText[i] = value.charCodeAt(i);
  return scratchText;
}
