import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BinaryCopyRows, type RowSink } from './copy-binary.ts';
import { generateWorkspace } from './generate.ts';
import { stageRecord } from './import-rows.ts';
import { PlainLines } from './plain-lines.ts';
import { RECORD_TYPES, type RecordType } from './records.ts';

const WORKSPACE = '152d1f25-92b4-42c3-b7fa-73b380973f96';
const NOW = '2026-11-15T09:30:00.000Z';

/** Every table's rows, each as the complete COPY stream it would send. */
class Sink implements RowSink {
  readonly tables = new Map<string, BinaryCopyRows>();

  rowsOf(table: string): BinaryCopyRows {
    let rows = this.tables.get(table);
    if (!rows) {
      rows = new BinaryCopyRows(64);
      this.tables.set(table, rows);
    }
    return rows;
  }

  streams(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [table, rows] of this.tables)
      if (rows.rows > 0) out[table] = rows.take().toString('hex');
    return out;
  }
}

/** The rows the byte path stages for a line, or undefined when it declines it. */
function byBytes(line: Buffer): Record<string, string> | undefined {
  const sink = new Sink();
  if (!new PlainLines(WORKSPACE, NOW).stage(sink, line, 0, line.length)) {
    // Declining writes nothing.
    expect(sink.streams()).toEqual({});
    return undefined;
  }
  return sink.streams();
}

/** The rows the importer stages for a line by JSON.parse and the record's schema, or why not. */
function bySchema(line: Buffer): Record<string, string> | string {
  let parsed: { type?: unknown } & Record<string, unknown>;
  try {
    parsed = JSON.parse(line.toString('utf8')) as typeof parsed;
  } catch {
    return 'not JSON';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return 'not an object';
  const { type, ...data } = parsed;
  if (typeof type !== 'string' || !(type in RECORD_TYPES)) return 'no record type';
  const result = RECORD_TYPES[type as RecordType].schema.safeParse(data);
  if (!result.success) return result.error.message;
  const sink = new Sink();
  stageRecord(sink, type as RecordType, result.data, WORKSPACE, NOW, (message) => {
    throw new Error(message);
  });
  return sink.streams();
}

/** Whenever the byte path takes a line, the schema takes it and stages the same bytes. */
function expectSameAsSchema(line: Buffer): boolean {
  const bytes = byBytes(line);
  if (bytes === undefined) return false;
  expect(bySchema(line), line.toString('utf8')).toEqual(bytes);
  return true;
}

/** A record as JSON text: each value given as its own JSON text, in the given order. */
type Fields = [key: string, json: string][];
const text = (fields: Fields, prefix = '') =>
  `{${prefix}${fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
const json = (value: unknown) => JSON.stringify(value);

const entry: Fields = [
  ['type', json('timeEntry')],
  ['id', json('269bbc35-d559-4e14-a82b-0caba3b7fde0')],
  ['userId', json('b155d6c0-ff49-4e6a-810b-cd0e346315be')],
  ['projectId', json('131c4901-af3a-46d6-a6bb-6b4160ed7416')],
  ['taskId', json('50ced577-1724-4860-a891-6770270ff4f4')],
  ['invoiceId', 'null'],
  ['entryDate', json('2025-06-02')],
  ['durationSeconds', '11700'],
  ['billable', 'true'],
  ['isRunning', 'false'],
  ['startedAt', json('2025-06-02T08:12:00.000Z')],
  ['stoppedAt', json('2025-06-02T11:27:00.000Z')],
  ['note', json('Wireframes, v2 😀 ünï')],
  ['createdAt', json('2025-06-02T11:27:05.120Z')],
  ['updatedAt', json('2025-06-03T07:00:00.000Z')],
  ['deletedAt', 'null'],
];

const invoiceLine: Fields = [
  ['id', json('79373ed7-1352-4285-854c-9e6a494ae7a8')],
  ['kind', json('TIME')],
  ['timeEntryId', json('5fc30744-4f64-473d-a713-deb6e0ff653b')],
  ['expenseId', 'null'],
  ['projectId', json('1b19555f-731f-480d-becb-c8f2b070d2d1')],
  ['description', json('Content')],
  ['subtitle', json('Amélie Ritchie')],
  ['detail', json('2025-06-02')],
  ['groupLabel', json('Packaging design')],
  ['quantity', json('3.9167')],
  ['unitPrice', json('189.00')],
  ['amount', json('740.25')],
];

const invoiceHead: Fields = [
  ['type', json('invoice')],
  ['id', json('c142ecb5-1a19-4cb6-b8c4-a4794739e3f2')],
  ['clientId', json('e6768400-2e2e-47bf-b140-53b311f18a21')],
  ['number', json('INV-0001')],
  ['status', json('SENT')],
  ['paymentStatus', json('unpaid')],
  ['currency', json('USD')],
  ['issueDate', json('2025-06-30')],
  ['dueDate', json('2025-07-30')],
  ['subtotal', json('740.25')],
  ['discountAmount', json('0')],
  ['taxRate', json('19')],
  ['total', json('880.90')],
  ['amountPaid', json('0')],
  ['notes', json('Thanks!\nSee "terms", \\ backslash')],
];

const billLine: Fields = [
  ['id', json('68aafff9-6494-42bf-b160-35f19d79c6af')],
  ['kind', json('TIME')],
  ['timeEntryId', json('6a74e077-97af-4ee5-83a1-62bce602309b')],
  ['projectId', json('e66c3dd9-f889-4d10-9f44-3fbd3854753a')],
  ['taskId', 'null'],
  ['workDate', json('2025-06-02')],
  ['durationSeconds', '24300'],
  ['hourlyRate', json('44.80')],
  ['quantity', json('6.75')],
  ['unitPrice', json('44.80')],
  ['amount', json('302.40')],
  ['description', json('Customer portal')],
  ['sourceSnapshot', 'null'],
];

const billHead: Fields = [
  ['type', json('bill')],
  ['id', json('3296a49e-2828-4dbb-86f7-a44726af8e5b')],
  ['payeeId', json('896eb069-e808-42c2-a7bc-43c3f6153c0e')],
  ['number', json('B-0001')],
  ['status', json('APPROVED')],
  ['currency', json('EUR')],
  ['serviceFrom', json('2025-06-01')],
  ['serviceTo', json('2025-06-30')],
  ['approvedAt', json('2025-07-01T10:00:00.000Z')],
  ['payeeSnapshot', json({ name: 'Ada "A" {L}', list: [1, '[', { x: '\\' }] })],
];

/** A record with its lines, the lines before the other fields (generator) or after (exporter). */
function withLines(head: Fields, lines: Fields[], linesFirst = false): string {
  const array = `[${lines.map((l) => text(l)).join(',')}]`;
  const fields: Fields = linesFirst
    ? [...head.slice(0, 3), ['lines', array], ...head.slice(3)]
    : [...head, ['lines', array]];
  return text(fields);
}

/** JSON texts that test the edges of every field kind, and break naive parsers. */
const AWKWARD_JSON = [
  'null',
  'true',
  'false',
  '0',
  '-0',
  '1',
  '01',
  '1e3',
  '1.0',
  '1.5',
  '2147483647',
  '2147483648',
  '99999999999999999999',
  '-1',
  ' 5',
  '{}',
  '[]',
  '{"a":"}"}',
  '["]",{}]',
  ...[
    '',
    '269BBC35-D559-4E14-A82B-0CABA3B7FDE0',
    '269bbc35-D559-4e14-a82b-0caba3b7fde0',
    '269bbc35-d559-4e14-a82b-0caba3b7fde',
    '269bbc35d5594e14a82b0caba3b7fde00000',
    '2025-02-29',
    '2024-02-29',
    '1900-02-29',
    '2000-02-29',
    '0001-01-01',
    '0999-12-31',
    '1000-01-01',
    '9999-12-31',
    '2025-13-01',
    '2025-00-10',
    '2025-04-31',
    '2025-6-2',
    '2025-06-02T08:12:00.000Z',
    '2025-06-02T08:12:00Z',
    '2025-06-02T08:12Z',
    '2025-06-02T08:12:00.5Z',
    '2025-06-02T08:12:00.123456Z',
    '2025-06-02T24:00:00.000Z',
    '2025-06-02T24:30:00.000Z',
    '2025-06-02T23:60:00.000Z',
    '2025-06-02T23:59:60.000Z',
    '2025-06-02T08:12:00.000+02:00',
    '2025-06-02t08:12:00.000z',
    '2025-06-02T08:11:59.999Z',
    '2025-02-29T00:00:00Z',
    '2024-02-29T12:00:00Z',
    '0001-01-01T00:00:00.000Z',
    '1000-01-01T00:00:00.000Z',
    '1714-06-01T00:00:00.000Z',
    '9999-12-31T23:59:59.999Z',
    '12.50',
    '-12.50',
    '-0',
    '-0.00',
    '007.5',
    '12.345',
    '12.3456',
    '12.34567',
    '1e3',
    '+1',
    '.5',
    '5.',
    '12345678901234.5678',
    '-99999999999999.9999',
    '123456789012345',
    '00000000000000000001.5',
    ' 1',
    '1,5',
    'NaN',
    'TIME',
    'EXPENSE',
    'FIXED_FEE',
    'ADJUSTMENT',
    'OTHER',
    'time',
    'TIME ',
    'JPY',
    'KWD',
    'XYZ',
    'comma, quote " and } brace',
    'back\\slash',
    'line\nbreak',
    'tab\there',
    'nul\u0000byte',
    'emoji 😀 𝄞',
    'lone \ud800 surrogate',
    'Amélie Spärck',
    '\u2028\u2029',
    '\u007f\u0080\u009f',
    'x'.repeat(10_000),
    'x'.repeat(10_001),
    'é'.repeat(5_000),
    'é'.repeat(5_001),
  ].map((v) => json(v)),
  // The same values escaped where JSON.stringify writes them raw: JSON.parse reads them
  // back as the plain values.
  '"\\u0032025-06-02"',
  '"269bbc35-d559-4e14-a82b-0caba3b7fde\\u0030"',
  '"\\u0041"',
  '"a\\/b"',
  '"\\ud83d\\ude00"',
  '"TIM\\u0045"',
  '"1\\u002e5"',
];

const awkwardValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...AWKWARD_JSON) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary' }).map(json) },
  { weight: 1, arbitrary: fc.integer().map(json) },
  { weight: 1, arbitrary: fc.double().map(json) },
);

const EXTRA_KEYS = ['createdAt', 'updatedAt', 'deletedAt', 'extra', 'type', 'id', 'lines'];

/**
 * A record's fields changed a few times: a value replaced by an awkward one, a key dropped,
 * repeated with another value (JSON.parse keeps the last), moved, or added.
 */
function mutated(base: Fields): fc.Arbitrary<Fields> {
  const keys = [...base.map(([k]) => k), ...EXTRA_KEYS];
  const change = fc.oneof(
    fc.tuple(fc.constant('set' as const), fc.constantFrom(...keys), awkwardValue),
    fc.tuple(fc.constant('drop' as const), fc.constantFrom(...keys), fc.constant('')),
    fc.tuple(fc.constant('repeat' as const), fc.constantFrom(...keys), awkwardValue),
    fc.tuple(fc.constant('move' as const), fc.constantFrom(...keys), fc.constant('')),
  );
  return fc.array(change, { maxLength: 3 }).map((changes) => {
    const fields = [...base];
    for (const [op, key, value] of changes) {
      const at = fields.findIndex(([k]) => k === key);
      if (op === 'set') {
        if (at === -1) fields.push([key, value]);
        else fields[at] = [key, value];
      } else if (op === 'drop' && at !== -1) {
        fields.splice(at, 1);
      } else if (op === 'repeat') {
        fields.push([key, value]);
      } else if (op === 'move' && at !== -1) {
        const [moved] = fields.splice(at, 1);
        fields.splice(Math.max(0, at - 1), 0, moved!);
      }
    }
    return fields;
  });
}

/** JSON text with a blank inserted between two tokens (or inside a string) at random. */
const withBlank = (line: string) =>
  fc.nat(line.length).map((at) => `${line.slice(0, at)} ${line.slice(at)}`);

const line = (value: string) => Buffer.from(value, 'utf8');

describe('the byte path for plain records', () => {
  it('takes the forms the exporter and the generator write, as the schema stages them', () => {
    const generatorEntry = entry.filter(([k]) => k !== 'createdAt' && k !== 'updatedAt');
    for (const record of [
      text(entry),
      text(generatorEntry),
      text([...entry.slice(0, -4), ['note', json('Refactored "cart" \\ \n\t/ module')]]),
      withLines(invoiceHead, [invoiceLine, invoiceLine]),
      withLines(invoiceHead, [invoiceLine], true),
      withLines(invoiceHead, []),
      withLines(billHead, [billLine, billLine.filter(([k]) => k !== 'workDate')], true),
      withLines(billHead, [billLine]),
    ]) {
      expect(expectSameAsSchema(line(record)), record).toBe(true);
    }
  });

  it('leaves every other form and every error to the schema', () => {
    const set = (fields: Fields, key: string, value: string): Fields =>
      fields.map(([k, v]) => [k, k === key ? value : v]);
    for (const record of [
      text(set(entry, 'id', json('269BBC35-D559-4E14-A82B-0CABA3B7FDE0'))),
      text(set(entry, 'entryDate', json('2025-02-29'))),
      text(set(entry, 'note', json('nul\u0000'))),
      text(set(entry, 'note', '"\\u0041"')),
      text(set(entry, 'durationSeconds', '1e3')),
      text(set(entry, 'stoppedAt', json('2025-06-02T08:11:59.999Z'))),
      text([...entry, ['durationSeconds', '5']]),
      `${text(entry).slice(0, -1)} }`,
      text(entry).replace('"userId":', '"userId": '),
      withLines(invoiceHead, [set(invoiceLine, 'amount', json('1.005'))]),
      withLines(set(invoiceHead, 'currency', json('JPY')), [invoiceLine]),
      withLines([...invoiceHead, ['lines', '[]']], [invoiceLine], true),
      withLines([...invoiceHead, ['id', json(WORKSPACE)]], [invoiceLine]),
      withLines([...invoiceHead, ['type', json('bill')]], [invoiceLine]),
      withLines(billHead, [set(billLine, 'timeEntryId', 'null')]),
      withLines(billHead, [set(billLine, 'sourceSnapshot', '{}')]),
    ]) {
      expect(byBytes(line(record)), record).toBeUndefined();
    }
  });

  it('declines raw control characters and bytes that are not well-formed UTF-8 in text', () => {
    // JSON.parse refuses a raw control character; the rest would decode to U+FFFD.
    // `|` marks where the bytes go: in plain text, and in text past an escape.
    for (const note of ['Wire|frames', 'Wire \\"frames\\" |']) {
      const [before, after] = text(entry).replace('Wireframes', note).split('|');
      for (const bad of [
        [0x00],
        [0x09],
        [0x0a],
        [0x1f],
        [0xff],
        [0xc0, 0x80],
        [0xc3],
        [0xe0, 0x80, 0x80],
        [0xed, 0xa0, 0x80],
        [0xf4, 0x90, 0x80, 0x80],
        [0xf0, 0x9f, 0x98],
      ]) {
        const bytes = Buffer.concat([line(before!), Buffer.from(bad), line(after!)]);
        expect(byBytes(bytes), bytes.toString('hex')).toBeUndefined();
        expect(byBytes(Buffer.concat([line(before!), line(after!)]))).toBeDefined();
      }
    }
  });

  it('stages exactly what the schema stages with any one field set to an awkward value', () => {
    const setEach = (fields: Fields, build: (changed: Fields) => string) => {
      const lines: string[] = [];
      for (const key of [...fields.map(([k]) => k), 'createdAt', 'updatedAt', 'extra'])
        for (const value of AWKWARD_JSON) {
          const at = fields.findIndex(([k]) => k === key);
          const changed: Fields =
            at === -1
              ? [...fields, [key, value]]
              : fields.map(([k, v]) => [k, k === key ? value : v]);
          lines.push(build(changed));
        }
      return lines;
    };
    const taken = [
      ...setEach(entry, (fields) => text(fields)),
      ...setEach(invoiceLine, (l) => withLines(invoiceHead, [invoiceLine, l], true)),
      ...setEach(billLine, (l) => withLines(billHead, [l, billLine])),
      ...['JPY', 'KWD', 'CLF'].flatMap((currency) =>
        setEach(billLine, (l) =>
          withLines(
            billHead.map(([k, v]) => [k, k === 'currency' ? json(currency) : v]),
            [l],
          ),
        ),
      ),
    ].filter((record) => expectSameAsSchema(line(record)));
    expect(taken.length).toBeGreaterThan(500);
  });

  it('stages exactly what the schema stages for every line it takes', () => {
    let taken = 0;
    const check = (record: string) => {
      if (expectSameAsSchema(line(record))) taken++;
    };
    fc.assert(
      fc.property(mutated(entry), (fields) => check(text(fields))),
      { numRuns: 4000 },
    );
    fc.assert(
      fc.property(
        mutated(invoiceHead),
        fc.array(mutated(invoiceLine), { maxLength: 3 }),
        fc.boolean(),
        (head, lines, linesFirst) => check(withLines(head, lines, linesFirst)),
      ),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(
        mutated(billHead),
        fc.array(mutated(billLine), { maxLength: 3 }),
        fc.boolean(),
        (head, lines, linesFirst) => check(withLines(head, lines, linesFirst)),
      ),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(
        fc
          .constantFrom(
            text(entry),
            withLines(invoiceHead, [invoiceLine], true),
            withLines(billHead, [billLine]),
          )
          .chain(withBlank),
        check,
      ),
      { numRuns: 1000 },
    );
    // The mutations leave a good share of records plain: the comparison is not empty.
    expect(taken).toBeGreaterThan(1000);
  });

  it('takes every time entry, invoice and bill of a generated workspace', async () => {
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    await generateWorkspace({ timeEntries: 3000, seed: 11 }, out);
    const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split('\n');
    const types = new Map<string, number>();
    for (const record of lines) {
      const type = (JSON.parse(record) as { type: string }).type;
      if (type !== 'timeEntry' && type !== 'invoice' && type !== 'bill') continue;
      expect(expectSameAsSchema(line(record)), record.slice(0, 200)).toBe(true);
      types.set(type, (types.get(type) ?? 0) + 1);
    }
    expect(types.get('timeEntry')).toBe(3000);
    expect(types.get('invoice')).toBeGreaterThan(10);
    expect(types.get('bill')).toBeGreaterThan(10);
  });
});
