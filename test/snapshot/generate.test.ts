/**
 * What a generated workspace holds: a 3000-entry workspace, and workspaces of unusual options,
 * follow every cross-record rule of the importer (test/support/snapshot-rules.ts), their counts
 * match the lines written, and the 3000-entry one has the cases the reports must handle.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Money } from '../../src/money/money.ts';
import type { GenerateOptions } from '../../src/snapshot/generate.ts';
import type { RecordOf } from '../../src/snapshot/records.ts';
import {
  generate,
  parseSnapshot,
  withoutZeros,
  type Records,
  type Snapshot,
} from '../support/generator-output.ts';
import { payeeRateAt, RULES } from '../support/snapshot-rules.ts';

describe('a generated workspace (3000 entries)', () => {
  let snapshot: Snapshot;
  let counts: Record<string, number>;
  let r: Records;

  beforeAll(async () => {
    const generated = await generate({ timeEntries: 3000, seed: 7 });
    counts = generated.counts;
    snapshot = parseSnapshot(generated.bytes.toString('utf8'));
    r = snapshot.records;
  });

  it.each(Object.entries(RULES))('rule %s', (_name, check) => check(snapshot));

  it('starts with the workspace line', () => {
    expect(snapshot.workspace).toMatchObject({
      plan: 'agency',
      baseCurrency: 'EUR',
      timezone: 'Europe/Berlin',
    });
  });

  it('returns counts that match the lines written', () => {
    expect(counts).toEqual(snapshot.lineTypes);
    expect(counts.timeEntry).toBe(3000);
  });

  it('has the time entries the reports must handle', () => {
    const e = r.timeEntry;
    expect(e.some((x) => x.isRunning && x.invoiceId === null && x.stoppedAt === null)).toBe(true);
    expect(e.some((x) => x.deletedAt !== null)).toBe(true);
    expect(e.some((x) => x.durationSeconds === 0 && !x.isRunning)).toBe(true);
    expect(e.some((x) => !x.billable)).toBe(true);
    expect(new Set(e.map((x) => x.entryDate.slice(0, 7))).size).toBe(18);
  });

  it('has every status, line kind, currency case and payment shape', () => {
    const statuses = (items: { status: string }[]) => new Set(items.map((x) => x.status));
    expect(statuses(r.invoice)).toEqual(new Set(['DRAFT', 'SENT', 'PAID', 'CANCELLED']));
    expect(statuses(r.bill)).toEqual(new Set(['DRAFT', 'APPROVED', 'VOID']));
    expect(statuses(r.payment)).toEqual(new Set(['RECORDED', 'REVERSED']));
    const reversed = r.payment.filter((p) => p.status === 'REVERSED');
    expect(reversed.every((p) => p.reversedAt !== null && p.reversalReason !== null)).toBe(true);
    const clientCurrencies = new Set(r.client.map((c) => c.currency));
    for (const c of [null, 'USD', 'GBP', 'JPY', 'KWD']) expect(clientCurrencies).toContain(c);
    expect(new Set(r.project.map((p) => p.rateType))).toEqual(
      new Set(['HOURLY', 'FIXED', 'NON_BILLABLE']),
    );
    const kinds = new Set(r.invoice.flatMap((i) => i.lines.map((l) => l.kind)));
    expect(kinds).toEqual(new Set(['TIME', 'EXPENSE', 'FIXED_FEE', 'OTHER']));
    expect(r.bill.some((b) => b.lines.some((l) => l.kind === 'ADJUSTMENT'))).toBe(true);
    const paid = (i: RecordOf<'invoice'>) => new Money(i.amountPaid);
    expect(r.invoice.some((i) => paid(i).greaterThan(0) && paid(i).lessThan(i.total))).toBe(true);
    expect(r.invoice.some((i) => paid(i).greaterThan(i.total))).toBe(true);
    expect(r.invoice.some((i) => new Money(i.discountAmount).greaterThan(0))).toBe(true);
    expect(r.payment.some((p) => p.allocations.length > 1)).toBe(true);
    expect(new Set(r.payment.map((p) => p.settlementMode))).toEqual(
      new Set(['SAME_CURRENCY', 'CONVERTED']),
    );
  });

  it('has payees with currency changes, credits, late starts and missing rates; members without payee', () => {
    expect(r.payee.some((p) => new Set(p.rates.map((x) => x.currency)).size > 1)).toBe(true);
    expect(r.payee.some((p) => p.credits.length > 0)).toBe(true);
    expect(r.member.length).toBeGreaterThan(r.payee.length);
    const payeeOf = new Map(r.payee.map((p) => [p.userId, p]));
    const beforeStart = r.timeEntry.filter(
      (e) => e.entryDate < (payeeOf.get(e.userId)?.startDate ?? ''),
    );
    expect(beforeStart.length).toBeGreaterThan(0);
    const withoutRate = r.timeEntry.filter((e) => {
      const payee = payeeOf.get(e.userId);
      return (
        payee && e.entryDate >= (payee.startDate ?? '') && payeeRateAt(payee, e.entryDate) === null
      );
    });
    expect(withoutRate.length).toBeGreaterThan(0);
  });

  it('has fx rate gaps, and a currency without rates for the first months', () => {
    const months = [...new Set(r.timeEntry.map((e) => e.entryDate.slice(0, 7)))];
    const currencies = [...new Set(r.fxRate.map((x) => x.fromCurrency))];
    const rated = (c: string) =>
      new Set(r.fxRate.filter((x) => x.fromCurrency === c).map((x) => x.effectiveFrom.slice(0, 7)));
    const withGaps = currencies.filter((c) => months.some((m) => !rated(c).has(m)));
    expect(withGaps).toEqual(currencies);
    const firstMonth = months.sort()[0] ?? '';
    expect(currencies.filter((c) => [...rated(c)].every((m) => m > firstMonth))).toHaveLength(1);
  });
});

describe('unusual options still give a valid workspace', () => {
  it.each<GenerateOptions>([
    { timeEntries: 0, seed: 1 },
    { timeEntries: 600, seed: 2, members: 4, clients: 1, projects: 1, invoices: 40 },
    { timeEntries: 800, seed: 3, today: '2026-03-01', invoices: 0, plan: 'studio' },
    { timeEntries: 400, seed: -9_007_199_254_740_991, clients: 30, projects: 12 },
  ])('%o', async (options) => {
    const { bytes, counts } = await generate(options);
    const snapshot = parseSnapshot(bytes.toString('utf8'));
    for (const check of Object.values(RULES)) check(snapshot);
    expect(withoutZeros(counts)).toEqual(snapshot.lineTypes);
    expect(counts.timeEntry).toBe(options.timeEntries);
  });
});
