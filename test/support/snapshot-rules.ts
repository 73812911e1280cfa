/**
 * The cross-record rules of a snapshot that the importer checks (docs/import.md, "The
 * pipeline"), numbered 1 to 10, each a check over a snapshot parsed by generator-output.ts, so
 * every workspace the generator's tests make is held to all of them.
 */
import { expect } from 'vitest';
import { currencyScale } from '../../src/money/currencies.ts';
import { Money, parseAmount, parseDecimal, RATE_SCALE } from '../../src/money/money.ts';
import { RECORD_TYPES, type RecordOf, type RecordType } from '../../src/snapshot/records.ts';
import type { Snapshot } from './generator-output.ts';

function duplicates(values: readonly unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
}

/** The amount fits the currency's minor unit (rule 10). */
function fits(amount: string | null, currency: string): boolean {
  return amount === null || parseAmount(amount, currency).ok;
}

/** durationSeconds x hourlyRate / 3600, rounded half away from zero to the currency. */
function timeAmount(seconds: number, hourlyRate: string, currency: string): string {
  const scale = currencyScale(currency) ?? 2;
  return new Money(hourlyRate)
    .times(seconds)
    .div(3600)
    .toDecimalPlaces(scale, Money.ROUND_HALF_UP)
    .toFixed(scale);
}

const sum = (amounts: readonly string[]) => amounts.reduce((acc, a) => acc.plus(a), new Money(0));

const byId = <T extends { id: string }>(items: T[]) => new Map(items.map((i) => [i.id, i]));

/** Each rule by its name; a check fails through `expect`. */
export const RULES: Record<string, (s: Snapshot) => void> = {
  'every line parses with its record schema and has no unknown field': (s) => {
    expect(s.errors).toEqual([]);
  },

  '1: unique ids, one member per user, one owner, four tokens of members, one per role': ({
    records: r,
  }) => {
    for (const type of Object.keys(RECORD_TYPES) as RecordType[]) {
      const ids = (r[type] as { id?: string }[]).map((x) => x.id).filter((id) => id !== undefined);
      expect(duplicates(ids), type).toEqual([]);
    }
    const nestedIds = [
      ...r.invoice.flatMap((i) => i.lines.map((l) => l.id)),
      ...r.bill.flatMap((b) => b.lines.map((l) => l.id)),
      ...r.payee.flatMap((p) => [...p.rates.map((x) => x.id), ...p.credits.map((x) => x.id)]),
    ];
    expect(duplicates(nestedIds)).toEqual([]);
    const users = byId(r.user);
    expect(duplicates(r.member.map((m) => m.userId))).toEqual([]);
    expect(r.member.every((m) => users.has(m.userId))).toBe(true);
    expect(r.member.filter((m) => m.role === 'OWNER')).toHaveLength(1);
    const roleOf = new Map(r.member.map((m) => [m.userId, m.role]));
    expect(r.token.map((t) => roleOf.get(t.userId))).toEqual([
      'OWNER',
      'ADMIN',
      'MANAGER',
      'MEMBER',
    ]);
    for (const t of r.token) {
      expect('token' in t ? t.token : null).toMatch(/^tt_test_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
      expect(t.scopes).toEqual(['read', 'write']);
    }
  },

  '2: projects point to clients and users, tasks to projects and users': ({ records: r }) => {
    const clients = byId(r.client);
    const users = byId(r.user);
    const projects = byId(r.project);
    for (const p of r.project) {
      if (p.clientId !== null) expect(clients.has(p.clientId), p.id).toBe(true);
      expect(
        p.memberIds.every((id) => users.has(id)),
        p.id,
      ).toBe(true);
    }
    for (const t of r.task) {
      expect(projects.has(t.projectId), t.id).toBe(true);
      expect(
        t.assigneeIds.every((id) => users.has(id)),
        t.id,
      ).toBe(true);
    }
  },

  '3: entries point to users, projects, tasks of their project, and invoices that link them': ({
    records: r,
  }) => {
    const users = byId(r.user);
    const projects = byId(r.project);
    const tasks = byId(r.task);
    const entries = byId(r.timeEntry);
    const invoicesOfEntry = new Map<string, string[]>();
    for (const inv of r.invoice) {
      for (const l of inv.lines) {
        if (l.timeEntryId === null) continue;
        invoicesOfEntry.set(l.timeEntryId, [...(invoicesOfEntry.get(l.timeEntryId) ?? []), inv.id]);
      }
    }
    for (const e of r.timeEntry) {
      expect(users.has(e.userId), e.id).toBe(true);
      expect(projects.has(e.projectId), e.id).toBe(true);
      if (e.taskId !== null) expect(tasks.get(e.taskId)?.projectId, e.id).toBe(e.projectId);
      if (e.invoiceId !== null) expect(invoicesOfEntry.get(e.id), e.id).toContain(e.invoiceId);
    }
    // Beyond the rule: an entry is on at most one invoice line, and then carries its id.
    for (const [entryId, invoiceIds] of invoicesOfEntry) {
      expect(invoiceIds, entryId).toHaveLength(1);
      expect(entries.get(entryId)?.invoiceId, entryId).toBe(invoiceIds[0]);
    }
  },

  '4: expenses point to clients, projects, invoices, in the client currency or the base': (s) => {
    const r = s.records;
    const clients = byId(r.client);
    const projects = byId(r.project);
    const invoices = byId(r.invoice);
    for (const x of r.expense) {
      const client = clients.get(x.clientId);
      expect(client, x.id).toBeDefined();
      if (x.projectId !== null) expect(projects.has(x.projectId), x.id).toBe(true);
      if (x.invoiceId !== null) {
        const lines = invoices.get(x.invoiceId)?.lines ?? [];
        expect(
          lines.some((l) => l.expenseId === x.id),
          x.id,
        ).toBe(true);
      }
      expect(x.currency).toBe(client?.currency ?? s.workspace.baseCurrency);
    }
  },

  '5: invoices in the client currency, lines pointing to entries, expenses, projects': ({
    records: r,
  }) => {
    const clients = byId(r.client);
    const entries = byId(r.timeEntry);
    const expenses = byId(r.expense);
    const projects = byId(r.project);
    for (const inv of r.invoice) {
      const client = clients.get(inv.clientId);
      expect(client, inv.id).toBeDefined();
      expect(inv.currency).toBe(client?.currency ?? 'EUR');
      for (const l of inv.lines) {
        if (l.timeEntryId !== null) expect(entries.has(l.timeEntryId), l.id).toBe(true);
        if (l.expenseId !== null) expect(expenses.get(l.expenseId)?.invoiceId, l.id).toBe(inv.id);
        if (l.projectId !== null) expect(projects.has(l.projectId), l.id).toBe(true);
      }
    }
  },

  '5: invoices add up: subtotal = sum of lines, total = subtotal - discount + tax': ({
    records: r,
  }) => {
    const entries = byId(r.timeEntry);
    for (const inv of r.invoice) {
      const scale = currencyScale(inv.currency) ?? 2;
      expect(sum(inv.lines.map((l) => l.amount)).toFixed(scale), inv.id).toBe(inv.subtotal);
      const net = new Money(inv.subtotal).minus(inv.discountAmount);
      const tax = net
        .times(inv.taxRate ?? 0)
        .div(100)
        .toDecimalPlaces(scale, Money.ROUND_HALF_UP);
      expect(net.plus(tax).toFixed(scale), inv.id).toBe(inv.total);
      for (const l of inv.lines) {
        if (l.kind !== 'TIME') continue;
        const seconds = entries.get(l.timeEntryId ?? '')?.durationSeconds ?? -1;
        expect(l.amount, l.id).toBe(timeAmount(seconds, l.unitPrice ?? '', inv.currency));
      }
    }
  },

  '6: payees point to users, one per user, 2-4 rates with unique dates': ({ records: r }) => {
    const users = byId(r.user);
    expect(duplicates(r.payee.map((p) => p.userId))).toEqual([]);
    for (const p of r.payee) {
      expect(users.has(p.userId), p.id).toBe(true);
      expect(duplicates(p.rates.map((x) => x.effectiveFrom)), p.id).toEqual([]);
      expect(p.rates.length, p.id).toBeGreaterThanOrEqual(2);
      expect(p.rates.length, p.id).toBeLessThanOrEqual(4);
    }
  },

  '7: bill TIME lines link live entries of the payee at their pay rate, once on approved bills': ({
    records: r,
  }) => {
    const payees = byId(r.payee);
    const entries = byId(r.timeEntry);
    const projects = byId(r.project);
    const tasks = byId(r.task);
    const approvedEntries: string[] = [];
    for (const bill of r.bill) {
      const payee = payees.get(bill.payeeId);
      expect(payee, bill.id).toBeDefined();
      for (const l of bill.lines) {
        if (l.projectId !== null) expect(projects.has(l.projectId), l.id).toBe(true);
        if (l.taskId !== null) expect(tasks.has(l.taskId), l.id).toBe(true);
        if (l.kind !== 'TIME') continue;
        const entry = entries.get(l.timeEntryId ?? '');
        expect(entry?.userId, l.id).toBe(payee?.userId);
        if (!entry || !payee) continue;
        const rate = payeeRateAt(payee, entry.entryDate);
        expect(rate?.hourlyRate, l.id).toBe(l.hourlyRate);
        expect(rate?.currency, l.id).toBe(bill.currency);
        expect(entry.entryDate >= (payee.startDate ?? ''), l.id).toBe(true);
        expect(
          entry.isRunning || entry.deletedAt !== null || entry.durationSeconds === 0,
          l.id,
        ).toBe(false);
        expect(l.durationSeconds, l.id).toBe(entry.durationSeconds);
        expect(l.amount, l.id).toBe(
          timeAmount(entry.durationSeconds, l.hourlyRate ?? '', bill.currency),
        );
        if (bill.status === 'APPROVED') approvedEntries.push(entry.id);
      }
    }
    expect(duplicates(approvedEntries)).toEqual([]);
  },

  '8: payments allocate to approved bills of their payee, summing to the payment amount': ({
    records: r,
  }) => {
    const bills = byId(r.bill);
    for (const p of r.payment) {
      expect(p.allocations.length, p.id).toBeGreaterThan(0);
      expect(duplicates(p.allocations.map((a) => a.billId)), p.id).toEqual([]);
      for (const a of p.allocations) {
        const bill = bills.get(a.billId);
        expect(bill?.payeeId, p.id).toBe(p.payeeId);
        expect(bill?.status, p.id).toBe('APPROVED');
        expect(fits(a.amount, bill?.currency ?? ''), p.id).toBe(true);
        expect(new Money(a.amount).greaterThan(0), p.id).toBe(true);
      }
      const sameCurrency = p.allocations.every((a) => bills.get(a.billId)?.currency === p.currency);
      const paid = p.allocations.map((a) => (sameCurrency ? a.amount : (a.cashAmount ?? '')));
      expect(sum(paid).equals(p.amount), p.id).toBe(true);
      expect(p.settlementMode, p.id).toBe(sameCurrency ? 'SAME_CURRENCY' : 'CONVERTED');
    }
  },

  '9: fx rates unique per (from, to, effectiveFrom), from each foreign currency used to the base':
    ({ records: r }) => {
      expect(
        duplicates(r.fxRate.map((x) => `${x.fromCurrency}>${x.toCurrency}@${x.effectiveFrom}`)),
      ).toEqual([]);
      const used = new Set([
        ...r.client.map((c) => c.currency ?? 'EUR'),
        ...r.payee.flatMap((p) => p.rates.map((x) => x.currency)),
      ]);
      used.delete('EUR');
      expect(new Set(r.fxRate.map((x) => x.fromCurrency))).toEqual(used);
      expect(r.fxRate.every((x) => x.toCurrency === 'EUR')).toBe(true);
    },

  '10: every amount fits its currency, every rate has at most four decimals': ({ records: r }) => {
    const clients = byId(r.client);
    const bills = byId(r.bill);
    const rate = (text: string | null) => text === null || parseDecimal(text, RATE_SCALE).ok;
    for (const p of r.project) {
      const currency = (p.clientId === null ? null : clients.get(p.clientId)?.currency) ?? 'EUR';
      expect(fits(p.fixedFeeAmount, currency) && rate(p.hourlyRate), p.id).toBe(true);
    }
    for (const inv of r.invoice) {
      expect(inv.lines.every((l) => rate(l.unitPrice) && rate(l.quantity))).toBe(true);
    }
    for (const p of r.payee) expect(p.rates.every((x) => rate(x.hourlyRate))).toBe(true);
    for (const b of r.bill) {
      expect(b.lines.every((l) => rate(l.hourlyRate) && fits(l.amount, b.currency))).toBe(true);
    }
    for (const p of r.payment) {
      expect(p.allocations.every((a) => fits(a.amount, bills.get(a.billId)?.currency ?? ''))).toBe(
        true,
      );
    }
    expect(r.fxRate.every((x) => rate(x.rate))).toBe(true);
  },
};

/**
 * The pay rate on a day: the rate with the latest effectiveFrom on or before it
 * (docs/contract.md, "Unpaid-time item").
 */
export function payeeRateAt(
  payee: RecordOf<'payee'>,
  day: string,
): RecordOf<'payee'>['rates'][number] | null {
  const rates = payee.rates
    .filter((x) => x.effectiveFrom <= day)
    .sort((a, b) => (a.effectiveFrom < b.effectiveFrom ? -1 : 1));
  return rates.at(-1) ?? null;
}
