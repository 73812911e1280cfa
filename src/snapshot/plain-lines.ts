import { currencyScale } from '../money/currencies.ts';
import { BILL_LINE_KINDS, INVOICE_LINE_KINDS } from '../value-sets.ts';
import { BinaryCopyRows, millisSince2000, type RowSink } from './copy-binary.ts';
import { stageRecord } from './import-rows.ts';
import { RECORD_TYPES } from './records.ts';
import { TABLES, type TableName } from './tables.ts';

/**
 * The importer's byte path: the records a large snapshot is made of (time entries, one a
 * line, and the lines of invoices and bills) staged straight from the bytes of the file,
 * without a JS string or object for any of them: about a fifth of the cost of decoding,
 * JSON.parse, the object fast path (plain-records.ts) and the row encoder.
 *
 * A record takes it only in the exact plain form the exporter and the generator write:
 * its keys in the order of its table's columns (tables.ts, the order the exporter writes),
 * some left out where the schema gives a default, no whitespace, lower-case uuids, dates
 * `YYYY-MM-DD` and timestamps `YYYY-MM-DDTHH:MM:SS(.sss)Z` that exist in the years
 * 1000-9999, whole numbers 0-2147483647 without a sign or leading zero, decimals of at most
 * 14 + 4 digits, and text in valid UTF-8 without control characters or `\u` escapes (the
 * escapes of one character, such as `\"`, are decoded). Every value is checked by the rule
 * of its schema in records.ts and encoded as the schema's output would be
 * (plain-lines.test.ts compares the bytes). Anything else, and every record with an error,
 * is declined with nothing written: the importer then parses the line and the schema
 * decides, so every rule and every message stays the schema's.
 *
 * An invoice or bill is walked at its top level: the lines array is staged line by line,
 * and the rest of the record (a few hundred bytes) is parsed and checked by its schema as
 * before, with the rules that tie the lines to it (an amount in the parent's currency).
 */
export class PlainLines {
  /** The workspace id and the import time, encoded once. */
  private readonly workspace: Uint8Array;
  private readonly now: Uint8Array;
  private src: Buffer = EMPTY;
  /** `src` read four bytes at a time, to match keys; `src` starts at `offset` in it. */
  private view: DataView<ArrayBufferLike> = new DataView(EMPTY.buffer);
  private offset = 0;
  private p = 0;
  private end = 0;
  /** Per step of the row being scanned: what the record-level checks need (Step.op). */
  private readonly seen = new Float64Array(32);
  /** The row's createdAt in ms since 2000, or NaN: its updatedAt when that is absent. */
  private createdAt = Number.NaN;
  /** An escaped text decoded (its 10,000 bytes, and the last character past them). */
  private readonly decoded = new Uint8Array(MAX_TEXT_BYTES + 8);
  /** Most decimals of an amount in the lines of the record: at most its currency's. */
  private amountDecimals = 0;

  /**
   * @param workspaceId the workspace every row belongs to
   * @param nowText the import time (ISO 8601), for createdAt and updatedAt when absent
   */
  constructor(
    private readonly workspaceId: string,
    private readonly nowText: string,
  ) {
    this.workspace = BinaryCopyRows.encodeField((rows) => rows.uuid(workspaceId));
    this.now = BinaryCopyRows.encodeField((rows) => rows.timestamptz(nowText));
  }

  /**
   * Stages the record of the line `bytes[start, end)` into `sink` when it is in the plain
   * form; false, with nothing written, when it is not. With `keep` false the record is only
   * checked (what it wrote is dropped again): a file with errors is still read to its end.
   */
  stage(sink: RowSink, bytes: Buffer, start: number, end: number, keep = true): boolean {
    this.src = bytes;
    if (bytes.buffer !== this.view.buffer) this.view = new DataView(bytes.buffer);
    this.offset = bytes.byteOffset;
    this.p = start;
    this.end = end;
    if (!this.literal(TYPE_PREFIX)) return false;
    if (this.literal(TIME_ENTRY_TYPE)) return this.timeEntry(sink, keep);
    if (this.literal(INVOICE_TYPE)) return this.withLines(sink, 'invoice', keep, start);
    if (this.literal(BILL_TYPE)) return this.withLines(sink, 'bill', keep, start);
    return false;
  }

  private timeEntry(sink: RowSink, keep: boolean): boolean {
    const rows = sink.rowsOf(TIME_ENTRY.table);
    rows.mark();
    const plain =
      this.row(rows, TIME_ENTRY, NO_PARENT, 0) &&
      this.p === this.end - 1 &&
      this.src[this.p] === CLOSE_BRACE;
    if (!plain || !keep) rows.rollback();
    return plain;
  }

  /**
   * An invoice or bill, `{"type":"invoice","id":"<uuid>",...}`: its top-level keys walked
   * (values skipped) up to `"lines":[`, whose lines are staged by the template; the record
   * without its lines is then parsed and checked by its schema, and staged as before.
   */
  private withLines(
    sink: RowSink,
    type: 'invoice' | 'bill',
    keep: boolean,
    start: number,
  ): boolean {
    const template = type === 'invoice' ? INVOICE_LINE : BILL_LINE;
    const head = sink.rowsOf(type === 'invoice' ? 'invoices' : 'team_bills');
    const lines = sink.rowsOf(template.table);
    head.mark();
    lines.mark();
    const plain = this.headAndLines(sink, type, template, start);
    if (!plain || !keep) {
      head.rollback();
      lines.rollback();
    }
    return plain;
  }

  private headAndLines(
    sink: RowSink,
    type: 'invoice' | 'bill',
    template: Template,
    start: number,
  ): boolean {
    const src = this.src;
    if (!this.literal(ID_KEY)) return false;
    const idAt = this.p + 1;
    if (!this.uuidText()) return false;
    let open = -1;
    let close = -1;
    this.amountDecimals = 0;
    while (src[this.p] === COMMA) {
      this.p++;
      const key = this.p + 1;
      if (!this.skipKey()) return false;
      if (this.p - key === LINES.bytes.length + 2 && this.literalAt(key, LINES)) {
        if (open !== -1 || src[this.p] !== OPEN_BRACKET) return false;
        open = this.p;
        const view = this.view;
        const at = this.offset + idAt;
        const parent = BinaryCopyRows.encodeField((rows) => rows.lowerCaseUuid(view, at));
        if (!this.lines(sink.rowsOf(template.table), template, parent)) return false;
        close = this.p - 1;
      } else if (!this.skipValue()) {
        return false;
      }
    }
    if (open === -1 || this.p !== this.end - 1 || src[this.p] !== CLOSE_BRACE) return false;
    const bytes = this.src;
    let parsed: unknown;
    try {
      parsed = JSON.parse(
        bytes.toString('utf8', start, open + 1) + bytes.toString('utf8', close, this.end),
      );
    } catch {
      return false;
    }
    const id = bytes.toString('latin1', idAt, idAt + 36);
    if (!isObject(parsed) || parsed.type !== type || parsed.id !== id) return false;
    const { type: _, ...data } = parsed;
    const record = RECORD_TYPES[type].schema.safeParse(data);
    if (!record.success) return false;
    const decimals = currencyScale(record.data.currency);
    if (decimals === undefined || this.amountDecimals > decimals) return false;
    stageRecord(sink, type, record.data, this.workspaceId, this.nowText, () => undefined);
    return true;
  }

  /** The elements of a lines array, each a row of `template`; at `[`, past `]` after. */
  private lines(rows: BinaryCopyRows, template: Template, parent: Uint8Array): boolean {
    const src = this.src;
    this.p++;
    if (src[this.p] === CLOSE_BRACKET) {
      this.p++;
      return true;
    }
    for (let position = 0; ; position++) {
      if (src[this.p] !== OPEN_BRACE) return false;
      this.p++;
      if (!this.row(rows, template, parent, position)) return false;
      if (src[this.p] !== CLOSE_BRACE) return false;
      const decimals = this.seen[template.amountAt]!;
      if (decimals > this.amountDecimals) this.amountDecimals = decimals;
      this.p++;
      if (src[this.p] === CLOSE_BRACKET) {
        this.p++;
        return true;
      }
      if (src[this.p] !== COMMA) return false;
      this.p++;
    }
  }

  /** One row of `template` from an object's keys and values (past `{`, up to `}`). */
  private row(
    rows: BinaryCopyRows,
    template: Template,
    parent: Uint8Array,
    position: number,
  ): boolean {
    const { steps } = template;
    const seen = this.seen;
    this.createdAt = Number.NaN;
    rows.beginRow(steps.length);
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const op = step.op;
      if (op >= WORKSPACE) {
        if (op === WORKSPACE) rows.encoded(this.workspace);
        else if (op === PARENT) rows.encoded(parent);
        else rows.int4(position);
        continue;
      }
      if (!this.literal(step.key)) {
        if (step.required) return false;
        seen[i] = this.absent(rows, op);
        continue;
      }
      const value = this.value(rows, step);
      if (value === FAIL) return false;
      seen[i] = value;
    }
    return template.check(seen);
  }

  /** The default of an absent field, written; what `seen` records of it. */
  private absent(rows: BinaryCopyRows, op: number): number {
    switch (op) {
      case TRUE_BY_DEFAULT:
        rows.bool(true);
        return 1;
      case FALSE_BY_DEFAULT:
        rows.bool(false);
        return 0;
      case CREATED_AT:
        rows.encoded(this.now);
        return Number.NaN;
      case UPDATED_AT:
        if (Number.isNaN(this.createdAt)) rows.encoded(this.now);
        else rows.timestamptzMillis(this.createdAt);
        return Number.NaN;
      default:
        rows.null();
        return NULL_SEEN;
    }
  }

  /**
   * The value of a field present, checked by its step's rule and written; what `seen`
   * records of it (see Step.op), or FAIL.
   */
  private value(rows: BinaryCopyRows, step: Step): number {
    const op = step.op;
    if (step.nullable && this.literal(NULL)) {
      rows.null();
      return NULL_SEEN;
    }
    switch (op) {
      case UUID:
        return this.uuid(rows) ? 1 : FAIL;
      case DATE:
        return this.date(rows);
      case INT4:
        return this.int4(rows);
      case TRUE_BY_DEFAULT:
      case FALSE_BY_DEFAULT:
        return this.bool(rows);
      case TIMESTAMP:
      case CREATED_AT:
      case UPDATED_AT: {
        const millis = this.timestamp(rows);
        if (op === CREATED_AT) this.createdAt = millis;
        return millis;
      }
      case TEXT:
        return this.text(rows);
      case DECIMAL:
        return this.decimal(rows);
      case ONE_OF:
        return this.oneOf(rows, step.values);
      default:
        // NULL_ONLY: a present value other than null is the schema's to check.
        return FAIL;
    }
  }

  /** A lower-case uuid in quotes, written as 16 bytes. */
  private uuid(rows: BinaryCopyRows): boolean {
    const src = this.src;
    const p = this.p;
    if (p + 38 > this.end || src[p] !== QUOTE || src[p + 37] !== QUOTE) return false;
    if (!rows.lowerCaseUuid(this.view, this.offset + p + 1)) return false;
    this.p = p + 38;
    return true;
  }

  /** Past a lower-case uuid in quotes; false when there is none. */
  private uuidText(): boolean {
    const src = this.src;
    const p = this.p;
    if (p + 38 > this.end || src[p] !== QUOTE || src[p + 37] !== QUOTE) return false;
    for (let i = 0; i < 36; i++) if (UUID_CLASS[src[p + 1 + i]!] !== UUID_PATTERN[i]) return false;
    this.p = p + 38;
    return true;
  }

  /** A date `"YYYY-MM-DD"` that exists, in the years 1000-9999, as its day number. */
  private date(rows: BinaryCopyRows): number {
    const src = this.src;
    const p = this.p;
    if (p + 12 > this.end || src[p] !== QUOTE || src[p + 11] !== QUOTE) return FAIL;
    const year = yearAt(src, p + 1);
    if (src[p + 5] !== HYPHEN || src[p + 8] !== HYPHEN) return FAIL;
    const month = twoDigitsAt(src, p + 6);
    const day = twoDigitsAt(src, p + 9);
    if (!isDay(year, month, day)) return FAIL;
    rows.dateOf(year, month, day);
    this.p = p + 12;
    return 1;
  }

  /**
   * A timestamp `"YYYY-MM-DDTHH:MM:SS.sssZ"` or `"YYYY-MM-DDTHH:MM:SSZ"` (in the years
   * 1000-9999, a day that exists, 00:00:00-23:59:59), written; its ms since 2000, or FAIL.
   */
  private timestamp(rows: BinaryCopyRows): number {
    const src = this.src;
    const p = this.p;
    if (p + 22 > this.end || src[p] !== QUOTE) return FAIL;
    let millis = 0;
    let close = p + 21;
    if (src[p + 20] === DOT) {
      close = p + 25;
      if (close >= this.end) return FAIL;
      millis = threeDigitsAt(src, p + 21);
      if (millis < 0) return FAIL;
    }
    if (src[close - 1] !== UPPER_Z || src[close] !== QUOTE) return FAIL;
    const year = yearAt(src, p + 1);
    const month = twoDigitsAt(src, p + 6);
    const day = twoDigitsAt(src, p + 9);
    const hours = twoDigitsAt(src, p + 12);
    const minutes = twoDigitsAt(src, p + 15);
    const seconds = twoDigitsAt(src, p + 18);
    if (
      src[p + 5] !== HYPHEN ||
      src[p + 8] !== HYPHEN ||
      src[p + 11] !== UPPER_T ||
      src[p + 14] !== COLON ||
      src[p + 17] !== COLON ||
      !isDay(year, month, day) ||
      !(hours >= 0 && hours <= 23 && minutes >= 0 && minutes <= 59) ||
      !(seconds >= 0 && seconds <= 59)
    ) {
      return FAIL;
    }
    const instant = millisSince2000(year, month, day, hours, minutes, seconds, millis);
    rows.timestamptzMillis(instant);
    this.p = close + 1;
    return instant;
  }

  /** A whole number 0-2147483647: digits, no sign, no leading zero, no fraction. */
  private int4(rows: BinaryCopyRows): number {
    const src = this.src;
    let p = this.p;
    let value = src[p]! - ZERO;
    if (!(value >= 0 && value <= 9)) return FAIL;
    p++;
    if (value !== 0) {
      for (let digit = src[p]! - ZERO; digit >= 0 && digit <= 9; digit = src[p]! - ZERO) {
        value = value * 10 + digit;
        if (value > INT4_MAX) return FAIL;
        p++;
      }
    }
    // `1.5` or `1e3` must not pass as 1 with the rest taken for the next key.
    const next = src[p];
    if (next !== COMMA && next !== CLOSE_BRACE) return FAIL;
    rows.int4(value);
    this.p = p;
    return value;
  }

  private bool(rows: BinaryCopyRows): number {
    if (this.literal(TRUE)) {
      rows.bool(true);
      return 1;
    }
    if (this.literal(FALSE)) {
      rows.bool(false);
      return 0;
    }
    return FAIL;
  }

  /**
   * Text of at most 10,000 bytes (so at most 10,000 UTF-16 code units) in quotes, in valid
   * UTF-8, without control characters; the empty string is null (optionalText).
   */
  private text(rows: BinaryCopyRows): number {
    const src = this.src;
    const end = this.end;
    if (src[this.p] !== QUOTE) return FAIL;
    const from = this.p + 1;
    let p = from;
    for (;;) {
      while (p < end && PLAIN_TEXT[src[p]!] === 1) p++;
      if (p >= end) return FAIL;
      const c = src[p]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH) return this.escapedText(rows, from);
      if (c < 0x80) return FAIL;
      p = utf8After(src, p, end);
      if (p === FAIL) return FAIL;
    }
    if (p - from > MAX_TEXT_BYTES) return FAIL;
    if (p === from) rows.null();
    else rows.utf8(src, from, p);
    this.p = p + 1;
    return 1;
  }

  /**
   * Text with escapes, decoded into a scratch buffer first: the escapes of one character
   * (`\"` is common in notes); a `\u` escape (which can spell a NUL or half a surrogate
   * pair) is left to the schema.
   */
  private escapedText(rows: BinaryCopyRows, from: number): number {
    const src = this.src;
    const end = this.end;
    const out = this.decoded;
    let n = 0;
    let p = from;
    for (;;) {
      if (p >= end || n > MAX_TEXT_BYTES) return FAIL;
      const c = src[p]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const unescaped = UNESCAPED[src[p + 1]!]!;
        if (unescaped === 0) return FAIL;
        out[n++] = unescaped;
        p += 2;
      } else if (c < 0x80) {
        if (c < SPACE) return FAIL;
        out[n++] = c;
        p++;
      } else {
        const next = utf8After(src, p, end);
        if (next === FAIL) return FAIL;
        while (p < next) out[n++] = src[p++]!;
      }
    }
    if (n > MAX_TEXT_BYTES) return FAIL;
    rows.utf8(out, 0, n);
    this.p = p + 1;
    return 1;
  }

  /** A decimal `-?d{1,14}(.d{1,4})?` in quotes, written; how many decimals it has. */
  private decimal(rows: BinaryCopyRows): number {
    const src = this.src;
    if (src[this.p] !== QUOTE) return FAIL;
    const from = this.p + 1;
    let p = src[from] === MINUS ? from + 1 : from;
    const whole = p;
    while (isDigit(src[p]!)) p++;
    if (p === whole || p - whole > 14) return FAIL;
    let decimals = 0;
    if (src[p] === DOT) {
      const fraction = ++p;
      while (isDigit(src[p]!)) p++;
      decimals = p - fraction;
      if (decimals === 0 || decimals > 4) return FAIL;
    }
    if (src[p] !== QUOTE) return FAIL;
    rows.numericText(src, from, p);
    this.p = p + 1;
    return decimals;
  }

  /** One of `values` in quotes, written as text; its index. */
  private oneOf(rows: BinaryCopyRows, values: readonly Literal[]): number {
    const src = this.src;
    const from = this.p + 1;
    if (src[this.p] !== QUOTE) return FAIL;
    for (let v = 0; v < values.length; v++) {
      const value = values[v]!;
      const length = value.bytes.length;
      if (src[from + length] === QUOTE && this.literalAt(from, value)) {
        rows.utf8(src, from, from + length);
        this.p = from + length + 1;
        return v;
      }
    }
    return FAIL;
  }

  /** Past a key `"…":` without escapes; false when it is not one. */
  private skipKey(): boolean {
    const src = this.src;
    let p = this.p;
    if (src[p] !== QUOTE) return false;
    for (p++; p < this.end && src[p] !== QUOTE; p++) if (src[p] === BACKSLASH) return false;
    if (src[p + 1] !== COLON) return false;
    this.p = p + 2;
    return true;
  }

  /**
   * Past one JSON value, not checked (JSON.parse checks what is skipped), only found: a
   * string to its closing quote, an object or array to its closing bracket, anything else
   * up to the `,` or `}` after it.
   */
  private skipValue(): boolean {
    const src = this.src;
    const end = this.end;
    let p = this.p;
    let depth = 0;
    for (; p < end; p++) {
      const c = src[p];
      if (c === QUOTE) {
        for (p++; p < end && src[p] !== QUOTE; p++) if (src[p] === BACKSLASH) p++;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (depth === 0) break;
        depth--;
      } else if (c === COMMA && depth === 0) {
        break;
      }
    }
    if (p >= end) return false;
    this.p = p;
    return true;
  }

  private literal(literal: Literal): boolean {
    if (!this.literalAt(this.p, literal)) return false;
    this.p += literal.bytes.length;
    return true;
  }

  /** Whether `literal` is at `at`: four bytes at a time, the rest one by one. */
  private literalAt(at: number, literal: Literal): boolean {
    const { bytes, words } = literal;
    if (at + bytes.length > this.end) return false;
    const view = this.view;
    const offset = this.offset + at;
    for (let w = 0; w < words.length; w++)
      if (view.getInt32(offset + 4 * w, true) !== words[w]) return false;
    const src = this.src;
    for (let i = words.length * 4; i < bytes.length; i++)
      if (src[at + i] !== bytes[i]) return false;
    return true;
  }
}

/** What a step records of a null or absent value (NaN compares false with any instant). */
const NULL_SEEN = Number.NaN;
/** A value that breaks its rule. */
const FAIL = Number.NEGATIVE_INFINITY;
const INT4_MAX = 2_147_483_647;
/** Text is at most 10,000 UTF-16 code units: 10,000 UTF-8 bytes are never more. */
const MAX_TEXT_BYTES = 10_000;
const EMPTY = Buffer.alloc(0);
const NO_PARENT = new Uint8Array(0);

const QUOTE = 0x22;
const COMMA = 0x2c;
const HYPHEN = 0x2d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const COLON = 0x3a;
const UPPER_T = 0x54;
const UPPER_Z = 0x5a;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const SPACE = 0x20;

/** ASCII text to match in a line: its bytes, and its first bytes as little-endian int32s. */
interface Literal {
  bytes: Uint8Array;
  words: Int32Array;
}

function literalOf(text: string): Literal {
  const bytes = Buffer.from(text, 'latin1');
  const words = new Int32Array(bytes.length >> 2);
  for (let w = 0; w < words.length; w++) words[w] = bytes.readInt32LE(4 * w);
  return { bytes, words };
}

const NO_KEY = literalOf('');
const TYPE_PREFIX = literalOf('{"type":"');
const TIME_ENTRY_TYPE = literalOf('timeEntry",');
const INVOICE_TYPE = literalOf('invoice",');
const BILL_TYPE = literalOf('bill",');
const ID_KEY = literalOf('"id":');
const LINES = literalOf('lines');
const NULL = literalOf('null');
const TRUE = literalOf('true');
const FALSE = literalOf('false');

/** What Step.op a step takes: the rule of a field present, and what it writes when absent. */
const UUID = 0;
const DATE = 1;
const INT4 = 2;
/** A boolean, true when absent. */
const TRUE_BY_DEFAULT = 3;
const FALSE_BY_DEFAULT = 4;
const TIMESTAMP = 5;
/** A timestamp, not null; the import time when absent. */
const CREATED_AT = 6;
/** A timestamp, not null; createdAt, else the import time, when absent. */
const UPDATED_AT = 7;
/** Text without a NUL, at most 10,000 code units; empty is null (records.ts optionalText). */
const TEXT = 8;
/** A decimal with at most 4 decimals (decimalText()). */
const DECIMAL = 9;
const ONE_OF = 10;
/** Null or absent only (a snapshot object of a bill line is left to the schema). */
const NULL_ONLY = 11;
/** Columns the importer fills: the workspace, the parent record, the line's position. */
const WORKSPACE = 20;
const PARENT = 21;
const POSITION = 22;

interface Step {
  op: number;
  /** `"field":`, after a comma but for the first field. */
  key: Literal;
  /** Absent is an error (to the schema); otherwise absent takes the op's default. */
  required: boolean;
  nullable: boolean;
  values: readonly Literal[];
}

interface Rule {
  op: number;
  required?: boolean;
  nullable?: boolean;
  values?: readonly string[];
}

interface Template {
  table: TableName;
  steps: Step[];
  /** The rules across the fields of a row, over what `seen` recorded for each step. */
  check: (seen: Float64Array) => boolean;
  /** The step of a line's amount, whose decimals the parent's currency must allow. */
  amountAt: number;
}

const required = (op: number): Rule => ({ op, required: true });
const orNull = (op: number): Rule => ({ op, nullable: true });
const oneOf = (values: readonly string[]): Rule => ({ op: ONE_OF, required: true, values });
const AUDIT = {
  createdAt: { op: CREATED_AT },
  updatedAt: { op: UPDATED_AT },
  deletedAt: orNull(TIMESTAMP),
};

/**
 * The steps of a row of `table`, one per column in its order (tables.ts): a field of the
 * record by its rule in `rules` (each the rule of its schema in records.ts), or a column
 * the importer fills.
 */
function template(
  table: TableName,
  rules: Record<string, Rule>,
  check: (at: (field: string) => number) => Template['check'] = () => () => true,
): Template {
  const fields: string[] = [];
  const steps = TABLES[table].columns.map((column): Step => {
    const field = column.field;
    if (field === undefined) {
      const op =
        column.column === 'workspace_id'
          ? WORKSPACE
          : column.column === 'position'
            ? POSITION
            : PARENT;
      return { op, key: NO_KEY, required: false, nullable: false, values: [] };
    }
    const rule = rules[field];
    if (!rule) throw new Error(`${table}.${field} has no rule`);
    if (fields.length === 0 && rule.required !== true)
      throw new Error(`${table}: the first field must be required`);
    const key = literalOf(`${fields.length === 0 ? '' : ','}"${field}":`);
    fields.push(field);
    return {
      op: rule.op,
      key,
      required: rule.required === true,
      nullable: rule.nullable === true,
      values: (rule.values ?? []).map(literalOf),
    };
  });
  if (steps.length > 32) throw new Error(`${table} has more columns than PlainLines.seen`);
  const extra = Object.keys(rules).filter((field) => !fields.includes(field));
  if (extra.length > 0) throw new Error(`${table} has no column for ${extra.join(', ')}`);
  const at = (field: string) => TABLES[table].columns.findIndex((c) => c.field === field);
  return { table, steps, check: check(at), amountAt: at('amount') };
}

const TIME_ENTRY = template(
  'time_entries',
  {
    id: required(UUID),
    userId: required(UUID),
    projectId: required(UUID),
    taskId: orNull(UUID),
    invoiceId: orNull(UUID),
    entryDate: required(DATE),
    durationSeconds: required(INT4),
    billable: { op: TRUE_BY_DEFAULT },
    isRunning: { op: FALSE_BY_DEFAULT },
    startedAt: orNull(TIMESTAMP),
    stoppedAt: orNull(TIMESTAMP),
    note: orNull(TEXT),
    ...AUDIT,
  },
  // Not stopped before started (a null is NaN here, which compares false).
  (at) => {
    const started = at('startedAt');
    const stopped = at('stoppedAt');
    return (seen) => !(seen[stopped]! < seen[started]!);
  },
);

const INVOICE_LINE = template('invoice_lines', {
  id: required(UUID),
  kind: oneOf(INVOICE_LINE_KINDS),
  timeEntryId: orNull(UUID),
  expenseId: orNull(UUID),
  projectId: orNull(UUID),
  description: orNull(TEXT),
  subtitle: orNull(TEXT),
  detail: orNull(TEXT),
  groupLabel: orNull(TEXT),
  quantity: orNull(DECIMAL),
  unitPrice: orNull(DECIMAL),
  amount: required(DECIMAL),
});

const BILL_LINE = template(
  'team_bill_lines',
  {
    id: required(UUID),
    kind: oneOf(BILL_LINE_KINDS),
    timeEntryId: orNull(UUID),
    projectId: orNull(UUID),
    taskId: orNull(UUID),
    workDate: orNull(DATE),
    durationSeconds: orNull(INT4),
    hourlyRate: orNull(DECIMAL),
    quantity: orNull(DECIMAL),
    unitPrice: orNull(DECIMAL),
    amount: required(DECIMAL),
    description: orNull(TEXT),
    sourceSnapshot: orNull(NULL_ONLY),
  },
  (at) => {
    const kind = at('kind');
    const timeEntry = at('timeEntryId');
    const time = BILL_LINE_KINDS.indexOf('TIME');
    // A TIME line needs its time entry.
    return (seen) => seen[kind] !== time || !Number.isNaN(seen[timeEntry]);
  },
);

/** Per byte: 1 a lower-case hex digit, 2 a hyphen; per character of a uuid, which it must be. */
const UUID_CLASS = new Uint8Array(256);
for (const c of '0123456789abcdef') UUID_CLASS[c.charCodeAt(0)] = 1;
UUID_CLASS[HYPHEN] = 2;
const UUID_PATTERN = Uint8Array.from('xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx', (c) =>
  c === '-' ? 2 : 1,
);

/** 1 for the bytes that stand for themselves in a JSON string: ASCII but controls, quote, backslash. */
const PLAIN_TEXT = new Uint8Array(256);
PLAIN_TEXT.fill(1, SPACE, 0x80);
PLAIN_TEXT[QUOTE] = 0;
PLAIN_TEXT[BACKSLASH] = 0;

/** The byte a one-character escape `\x` stands for, by x; 0 for none. */
const UNESCAPED = new Uint8Array(256);
for (const [escape, byte] of [
  ['"', 0x22],
  ['\\', 0x5c],
  ['/', 0x2f],
  ['b', 0x08],
  ['f', 0x0c],
  ['n', 0x0a],
  ['r', 0x0d],
  ['t', 0x09],
] as const)
  UNESCAPED[escape.charCodeAt(0)] = byte;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDigit(c: number): boolean {
  return c >= ZERO && c <= ZERO + 9;
}

/** Four digits not starting with 0 (the years 1000-9999), or -1. */
function yearAt(src: Uint8Array, at: number): number {
  const a = src[at]! - ZERO;
  const b = src[at + 1]! - ZERO;
  const c = src[at + 2]! - ZERO;
  const d = src[at + 3]! - ZERO;
  if (!(a >= 1 && a <= 9 && b >= 0 && b <= 9 && c >= 0 && c <= 9 && d >= 0 && d <= 9)) return -1;
  return a * 1000 + b * 100 + c * 10 + d;
}

function twoDigitsAt(src: Uint8Array, at: number): number {
  const a = src[at]! - ZERO;
  const b = src[at + 1]! - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function threeDigitsAt(src: Uint8Array, at: number): number {
  const a = twoDigitsAt(src, at);
  const c = src[at + 2]! - ZERO;
  return a >= 0 && c >= 0 && c <= 9 ? a * 10 + c : -1;
}

/** A day that exists (no 2025-02-29) in the years 1000-9999. */
function isDay(year: number, month: number, day: number): boolean {
  if (year < 1000 || month < 1 || month > 12 || day < 1) return false;
  if (day <= DAYS_IN_MONTH[month - 1]!) return true;
  return month === 2 && day === 29 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * Past one well-formed UTF-8 sequence of two to four bytes at `p` (no overlong form, no
 * surrogate, nothing past U+10FFFF: what decodes and encodes back to the same bytes), or
 * FAIL.
 */
function utf8After(src: Uint8Array, p: number, end: number): number {
  const c = src[p]!;
  if (c >= 0xc2 && c <= 0xdf) return p + 1 < end && isContinuation(src[p + 1]!) ? p + 2 : FAIL;
  if (c >= 0xe0 && c <= 0xef) {
    if (p + 2 >= end) return FAIL;
    const c1 = src[p + 1]!;
    const low = c === 0xe0 ? 0xa0 : 0x80;
    const high = c === 0xed ? 0x9f : 0xbf;
    return c1 >= low && c1 <= high && isContinuation(src[p + 2]!) ? p + 3 : FAIL;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (p + 3 >= end) return FAIL;
    const c1 = src[p + 1]!;
    const low = c === 0xf0 ? 0x90 : 0x80;
    const high = c === 0xf4 ? 0x8f : 0xbf;
    return c1 >= low && c1 <= high && isContinuation(src[p + 2]!) && isContinuation(src[p + 3]!)
      ? p + 4
      : FAIL;
  }
  return FAIL;
}

function isContinuation(c: number): boolean {
  return (c & 0xc0) === 0x80;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
