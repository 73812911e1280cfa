import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainRecord } from './plain-records.ts';
import { RECORD_TYPES } from './records.ts';

const entry = {
  id: '269bbc35-d559-4e14-a82b-0caba3b7fde0',
  userId: 'b155d6c0-ff49-4e6a-810b-cd0e346315be',
  projectId: '131c4901-af3a-46d6-a6bb-6b4160ed7416',
  taskId: '50ced577-1724-4860-a891-6770270ff4f4',
  invoiceId: null,
  entryDate: '2025-06-02',
  durationSeconds: 11700,
  billable: true,
  isRunning: false,
  startedAt: '2025-06-02T08:12:00.000Z',
  stoppedAt: '2025-06-02T11:27:00.000Z',
  note: 'Wireframes, "v2"',
  deletedAt: null,
};

const invoiceLine = {
  id: '79373ed7-1352-4285-854c-9e6a494ae7a8',
  kind: 'TIME',
  timeEntryId: '5fc30744-4f64-473d-a713-deb6e0ff653b',
  expenseId: null,
  projectId: '1b19555f-731f-480d-becb-c8f2b070d2d1',
  description: 'Content',
  subtitle: 'Annie Liskov',
  detail: '2025-06-02',
  groupLabel: 'Packaging design',
  quantity: '3.9167',
  unitPrice: '189.00',
  amount: '740.25',
};

const invoice = {
  id: 'c142ecb5-1a19-4cb6-b8c4-a4794739e3f2',
  clientId: 'e6768400-2e2e-47bf-b140-53b311f18a21',
  number: 'INV-0001',
  status: 'SENT',
  paymentStatus: 'unpaid',
  currency: 'USD',
  issueDate: '2025-06-30',
  dueDate: '2025-07-30',
  subtotal: '740.25',
  discountAmount: '0',
  taxRate: '19',
  total: '880.90',
  amountPaid: '0',
  lines: [invoiceLine],
};

const billLine = {
  id: '68aafff9-6494-42bf-b160-35f19d79c6af',
  kind: 'TIME',
  timeEntryId: '6a74e077-97af-4ee5-83a1-62bce602309b',
  projectId: 'e66c3dd9-f889-4d10-9f44-3fbd3854753a',
  taskId: null,
  workDate: '2025-06-02',
  durationSeconds: 24300,
  hourlyRate: '44.80',
  quantity: '6.75',
  unitPrice: '44.80',
  amount: '302.40',
  description: 'Customer portal',
};

const bill = {
  id: '3296a49e-2828-4dbb-86f7-a44726af8e5b',
  payeeId: '896eb069-e808-42c2-a7bc-43c3f6153c0e',
  number: 'B-0001',
  status: 'APPROVED',
  currency: 'EUR',
  serviceFrom: '2025-06-01',
  serviceTo: '2025-06-30',
  approvedAt: '2025-07-01T10:00:00.000Z',
  lines: [billLine],
};

/** Values that test the edges of every field kind, and break naive parsers. */
const awkward = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    '',
    true,
    0,
    -0,
    -1,
    1.5,
    2_147_483_648,
    Number.NaN,
    '269BBC35-D559-4E14-A82B-0CABA3B7FDE0',
    '269bbc35-d559-4e14-a82b-0caba3b7fde',
    '269bbc35d5594e14a82b0caba3b7fde0',
    '2025-02-29',
    '2024-02-29',
    '2025-13-01',
    '0000-01-01',
    '0999-12-31',
    '2025-6-2',
    '2025-06-02T08:12:00Z',
    '2025-06-02T08:12:00.000+02:00',
    '2025-06-02T24:00:00.000Z',
    '2025-02-30T08:12:00.000Z',
    '2025-06-02T11:27:00.000Z',
    '2025-06-02T08:11:59.999Z',
    '-12.50',
    '12.345',
    '12.3456',
    '12.34567',
    '1e3',
    'NaN',
    '+1',
    '000000000000000000001.5',
    '123456789012345',
    'line\nbreak',
    'tab\there',
    'nul\u0000byte',
    'emoji 😀',
    'lone \ud800 surrogate',
    'x'.repeat(10_001),
    'TIME',
    'EXPENSE',
    'ADJUSTMENT',
    'OTHER',
    'JPY',
    'XYZ',
    [],
    {},
  ),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.integer(),
  fc.double(),
);

/** A record with a few of its fields (or unknown ones) replaced by awkward values. */
function mutated(base: Record<string, unknown>) {
  const keys = [...Object.keys(base), 'createdAt', 'updatedAt', 'deletedAt', 'extra'];
  return fc.array(fc.tuple(fc.constantFrom(...keys), awkward), { maxLength: 3 }).map((changes) => {
    const record: Record<string, unknown> = { ...base };
    for (const [key, value] of changes) record[key] = value;
    return record;
  });
}

function withLines(base: Record<string, unknown>, line: Record<string, unknown>) {
  return fc
    .tuple(mutated(base), fc.array(mutated(line), { minLength: 1, maxLength: 3 }))
    .map(([head, lines]) => ({ ...head, lines }));
}

/** Whenever the fast path accepts a record, the schema accepts it and returns the same. */
function expectSameAsSchema(type: keyof typeof RECORD_TYPES, record: Record<string, unknown>) {
  const plain = plainRecord(type, record);
  if (plain === undefined) return;
  const parsed = RECORD_TYPES[type].schema.safeParse(record);
  expect(parsed.success, JSON.stringify(record)).toBe(true);
  expect(plain).toEqual(parsed.data);
}

describe('the fast path for plain records', () => {
  it('takes the plain form the generator and the exporter write', () => {
    for (const [type, record] of [
      ['timeEntry', entry],
      ['invoice', invoice],
      ['bill', bill],
    ] as const) {
      expect(plainRecord(type, record)).toEqual(RECORD_TYPES[type].schema.parse(record));
    }
  });

  it('leaves every other form and every error to the schema', () => {
    expect(plainRecord('timeEntry', { ...entry, id: entry.id.toUpperCase() })).toBeUndefined();
    expect(plainRecord('timeEntry', { ...entry, entryDate: '2026-02-30' })).toBeUndefined();
    expect(plainRecord('timeEntry', { ...entry, note: 'nul\u0000' })).toBeUndefined();
    expect(
      plainRecord('invoice', { ...invoice, lines: [{ ...invoiceLine, amount: '1.005' }] }),
    ).toBeUndefined();
    expect(
      plainRecord('bill', { ...bill, lines: [{ ...billLine, timeEntryId: null }] }),
    ).toBeUndefined();
    expect(plainRecord('user', { id: entry.id, name: 'Ada' })).toBeUndefined();
  });

  it('returns what the schema returns for every record it takes', () => {
    fc.assert(
      fc.property(mutated(entry), (r) => expectSameAsSchema('timeEntry', r)),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(withLines(invoice, invoiceLine), (r) => expectSameAsSchema('invoice', r)),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(withLines(bill, billLine), (r) => expectSameAsSchema('bill', r)),
      { numRuns: 2000 },
    );
  });
});
