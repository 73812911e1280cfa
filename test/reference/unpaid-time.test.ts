import { describe, expect, it } from 'vitest';
import {
  ADA,
  BEN,
  bill,
  CY,
  DESIGN,
  entry,
  entryId,
  id,
  PAYEE_ADA,
  PAYEE_BEN,
  payeeAda,
  rate,
  rateId,
  timeLine,
  WEBSITE,
  workspace,
} from './reference-fixtures.ts';
import { unpaidTimeItems } from './unpaid-time.ts';

const PAYEE_CY = id(0x23);
const ids = (items: { timeEntryId: string }[]) => items.map((i) => i.timeEntryId);

describe('unpaidTimeItems (docs/contract.md, "Unpaid-time item")', () => {
  it('prices an entry at durationSeconds x hourlyRate / 3600 and names payee, project, task', () => {
    // 5400 s x 45.00 / 3600 = 67.50 EUR.
    const snapshot = workspace({
      payees: [payeeAda({ rates: [rate(1, '2026-01-01', '45.00')] })],
      timeEntries: [entry(1, { durationSeconds: 5400, taskId: DESIGN, note: 'Design review' })],
    });
    expect(unpaidTimeItems(snapshot, { scope: 'default' })).toEqual([
      {
        id: entryId(1),
        timeEntryId: entryId(1),
        payeeId: PAYEE_ADA,
        userId: ADA,
        projectId: WEBSITE,
        rateId: rateId(1),
        name: 'Ada L. (contractor)',
        projectName: 'Website',
        taskId: DESIGN,
        taskName: 'Design',
        description: 'Design review',
        currency: 'EUR',
        workDate: '2026-10-05',
        durationSeconds: 5400,
        hourlyRate: '45.00',
        amount: '67.50',
        section: 'default',
        selectedByDefault: true,
      },
    ]);
  });

  it('rounds each amount half away from zero to the rate currency (EUR, JPY, KWD)', () => {
    // Ada: 1800 s x 45.01 EUR / 3600 = 22.505 -> 22.51.
    // Ben: 1800 s x 4501 JPY / 3600 = 2250.5 -> 2251 (no decimals).
    // Cy: 1800 s x 12.345 KWD / 3600 = 6.1725 -> 6.173 (three decimals).
    const snapshot = workspace({
      payees: [
        payeeAda({ rates: [rate(1, '2026-01-01', '45.01')] }),
        { id: PAYEE_BEN, userId: BEN, name: 'Ben', rates: [rate(2, '2026-01-01', '4501', 'JPY')] },
        { id: PAYEE_CY, userId: CY, name: 'Cy', rates: [rate(3, '2026-01-01', '12.345', 'KWD')] },
      ],
      timeEntries: [
        entry(1, { durationSeconds: 1800 }),
        entry(2, { durationSeconds: 1800, userId: BEN }),
        entry(3, { durationSeconds: 1800, userId: CY }),
      ],
    });
    const items = unpaidTimeItems(snapshot, { scope: 'default' });
    expect(items.map((i) => [i.currency, i.hourlyRate, i.amount])).toEqual([
      ['EUR', '45.01', '22.51'],
      ['JPY', '4501', '2251'],
      ['KWD', '12.345', '6.173'],
    ]);
  });

  it('uses the rate with the latest effectiveFrom on or before each entry date (mid-range change)', () => {
    // Rates: 40.00 from 2026-01-01, 50.00 from 2026-10-10.
    // 10-09, 1 h -> 40.00; 10-10, 1 h -> 50.00 (a rate applies on its first day);
    // 10-20, 0.5 h -> 25.00; 2025-12-31 is before any rate -> no item.
    const snapshot = workspace({
      payees: [
        payeeAda({ rates: [rate(2, '2026-10-10', '50.00'), rate(1, '2026-01-01', '40.00')] }),
      ],
      timeEntries: [
        entry(1, { entryDate: '2026-10-09' }),
        entry(2, { entryDate: '2026-10-10' }),
        entry(3, { entryDate: '2026-10-20', durationSeconds: 1800 }),
        entry(4, { entryDate: '2025-12-31' }),
      ],
    });
    const items = unpaidTimeItems(snapshot, { scope: 'default' });
    expect(items.map((i) => [i.timeEntryId, i.rateId, i.amount])).toEqual([
      [entryId(1), rateId(1), '40.00'],
      [entryId(2), rateId(2), '50.00'],
      [entryId(3), rateId(2), '25.00'],
    ]);
  });

  it("leaves out work dated before the payee's start date, even with a rate in effect", () => {
    // Start 2026-10-10, rate 30.00 since 2026-01-01: 10-09 is out, 10-10 is in (30.00).
    const snapshot = workspace({
      payees: [payeeAda({ startDate: '2026-10-10', rates: [rate(1, '2026-01-01', '30.00')] })],
      timeEntries: [entry(1, { entryDate: '2026-10-09' }), entry(2, { entryDate: '2026-10-10' })],
    });
    const items = unpaidTimeItems(snapshot, { scope: 'default' });
    expect(items.map((i) => [i.timeEntryId, i.amount])).toEqual([[entryId(2), '30.00']]);
  });

  it('leaves out running, deleted and zero-length entries and users without a live payee', () => {
    // Only entry 1 qualifies: 2 runs, 3 is deleted, 4 lasts 0 s, Ben has no payee and
    // Cy's payee is deleted.
    const snapshot = workspace({
      payees: [
        payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] }),
        {
          id: PAYEE_CY,
          userId: CY,
          name: 'Cy',
          deletedAt: '2026-10-01T00:00:00Z',
          rates: [rate(3, '2026-01-01', '40.00')],
        },
      ],
      timeEntries: [
        entry(1),
        entry(2, { isRunning: true }),
        entry(3, { deletedAt: '2026-10-06T00:00:00Z' }),
        entry(4, { durationSeconds: 0 }),
        entry(5, { userId: BEN }),
        entry(6, { userId: CY }),
      ],
    });
    expect(ids(unpaidTimeItems(snapshot, { scope: 'all' }))).toEqual([entryId(1)]);
  });

  it('leaves out entries on an APPROVED bill but keeps those on DRAFT, VOID or deleted bills', () => {
    const snapshot = workspace({
      payees: [payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] })],
      timeEntries: [entry(1), entry(2), entry(3), entry(4)],
      bills: [
        bill(1, { lines: [timeLine(1, entryId(1), '40.00')] }),
        bill(2, { status: 'DRAFT', lines: [timeLine(2, entryId(2), '40.00')] }),
        bill(3, { status: 'VOID', lines: [timeLine(3, entryId(3), '40.00')] }),
        bill(4, { deletedAt: '2026-11-01T00:00:00Z', lines: [timeLine(4, entryId(4), '40.00')] }),
      ],
    });
    expect(ids(unpaidTimeItems(snapshot, { scope: 'default' }))).toEqual([
      entryId(2),
      entryId(3),
      entryId(4),
    ]);
  });

  it('lists billable work by default and adds the non_billable section with scope all', () => {
    const snapshot = workspace({
      payees: [payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] })],
      timeEntries: [entry(1), entry(2, { billable: false })],
    });
    const pick = (scope: 'default' | 'all') =>
      unpaidTimeItems(snapshot, { scope }).map((i) => [
        i.timeEntryId,
        i.section,
        i.selectedByDefault,
      ]);
    expect(pick('default')).toEqual([[entryId(1), 'default', true]]);
    expect(pick('all')).toEqual([
      [entryId(1), 'default', true],
      [entryId(2), 'non_billable', false],
    ]);
  });

  it("filters by the rate's currency", () => {
    // EUR 40.00 until 10-09, then JPY 6000 from 10-10: entry 2 (10-12) is the JPY item.
    const snapshot = workspace({
      payees: [
        payeeAda({
          rates: [rate(1, '2026-01-01', '40.00'), rate(2, '2026-10-10', '6000', 'JPY')],
        }),
      ],
      timeEntries: [entry(1, { entryDate: '2026-10-05' }), entry(2, { entryDate: '2026-10-12' })],
    });
    const items = unpaidTimeItems(snapshot, { scope: 'default', currency: 'JPY' });
    expect(items.map((i) => [i.timeEntryId, i.currency, i.amount])).toEqual([
      [entryId(2), 'JPY', '6000'],
    ]);
  });

  it('shows the rate with at least its currency decimals and an empty note as null', () => {
    // Rate "45" -> "45.00"; rate "45.1250" from 10-10 -> "45.125"; 1 h each.
    const snapshot = workspace({
      payees: [
        payeeAda({ rates: [rate(1, '2026-01-01', '45'), rate(2, '2026-10-10', '45.1250')] }),
      ],
      timeEntries: [entry(1, { note: '' }), entry(2, { entryDate: '2026-10-12' })],
    });
    const items = unpaidTimeItems(snapshot, { scope: 'default' });
    expect(items.map((i) => [i.hourlyRate, i.amount, i.description, i.taskName])).toEqual([
      ['45.00', '45.00', null, null],
      ['45.125', '45.13', null, null],
    ]);
  });
});
