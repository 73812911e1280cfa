import { Money } from '../../money/money.ts';
import { amountOf, percentOf, priceIn, ZERO, type Amount, type GeneratedCurrency } from './amounts.ts';
import { isoDate, isoTimestamp, type Month } from './calendar.ts';
import type { Generation } from './context.ts';
import type { EntryRefs } from './entry-refs.ts';
import type { ClientModel, WorkspaceModel } from './model.ts';
import { EXPENSE_DESCRIPTIONS, OTHER_LINE_DESCRIPTIONS } from './names.ts';
import type { Random } from './random.ts';

type InvoiceStatus = 'DRAFT' | 'SENT' | 'PAID' | 'CANCELLED';

export interface InvoiceStub {
  id: string;
  number: string;
  client: ClientModel;
  status: InvoiceStatus;
  /** The client's first invoice of the month also carries fixed fees and expenses. */
  firstOfClient: boolean;
}

/** The invoices of one month, planned before its entries so entries can name them. */
export interface MonthInvoices {
  stubs: InvoiceStub[];
  /** Per client: index of its first invoice in `stubs` (when slotCount > 0). */
  firstSlot: Int32Array;
  slotCount: Int32Array;
  /** Share of a client's invoiceable entries of the month that its invoices take. */
  share: number;
}

/** Invoice lines other than TIME, already JSON, with their amount. */
interface ExtraLine {
  json: string;
  amount: Money;
}

/**
 * Spreads `settings.invoices` invoices evenly over the (client, month) slots: slot s of S
 * gets floor((s+1)K/S) - floor(sK/S) invoices, so the total is exactly K. Status by age:
 * the current month's invoices are drafts; older ones are mostly PAID, some SENT, a few
 * CANCELLED.
 */
export function planInvoices(g: Generation, model: WorkspaceModel, month: Month, nextNumber: () => string): MonthInvoices {
  const rng = g.invoiceRandom;
  const clients = model.clients;
  const total = g.settings.invoices;
  const slots = clients.length * g.settings.months.length;
  const firstSlot = new Int32Array(clients.length).fill(-1);
  const slotCount = new Int32Array(clients.length);
  const stubs: InvoiceStub[] = [];
  for (const client of clients) {
    const s = client.index * g.settings.months.length + month.index;
    const count = Math.floor(((s + 1) * total) / slots) - Math.floor((s * total) / slots);
    firstSlot[client.index] = stubs.length;
    slotCount[client.index] = count;
    for (let k = 0; k < count; k++) {
      stubs.push({ id: rng.uuid(), number: nextNumber(), client, status: invoiceStatus(rng, month), firstOfClient: k === 0 });
    }
  }
  return { stubs, firstSlot, slotCount, share: month.age === 0 ? 0.5 : 0.92 };
}

function invoiceStatus(rng: Random, month: Month): InvoiceStatus {
  const statuses = ['DRAFT', 'SENT', 'PAID', 'CANCELLED'] as const;
  if (month.age === 0) return 'DRAFT';
  const weights = month.age === 1 ? [35, 45, 20, 0] : [2, 18, 75, 5];
  return statuses[rng.weighted(weights)] ?? 'DRAFT';
}

const EXPENSE_CATEGORIES = ['TRAVEL', 'MEALS', 'LODGING', 'SOFTWARE', 'EQUIPMENT', 'SUBCONTRACTOR', 'OTHER'] as const;

/**
 * Writes the month's expenses: 0-2 per client, in the client's currency (else the base
 * currency). A billable expense of a client with an invoice this month is on that
 * invoice (80%): returned as an EXPENSE line per invoice slot.
 */
export async function writeMonthExpenses(
  g: Generation,
  model: WorkspaceModel,
  month: Month,
  invoices: MonthInvoices,
): Promise<ExtraLine[][]> {
  const rng = g.invoiceRandom;
  const lines: ExtraLine[][] = invoices.stubs.map(() => []);
  for (const client of model.clients) {
    const count = rng.weighted([55, 35, 10]);
    for (let k = 0; k < count; k++) {
      const category = EXPENSE_CATEGORIES[rng.weighted([25, 15, 15, 15, 10, 10, 10])] ?? 'OTHER';
      const description = rng.pick(EXPENSE_DESCRIPTIONS[category] ?? ['Expense']);
      const amount = priceIn(new Money(rng.between(500, 80_000)).div(100).toFixed(2), client.currency);
      const projectIndex = client.projects.length > 0 && rng.chance(0.6) ? rng.pick(client.projects) : null;
      const projectId = projectIndex === null ? null : (model.projects[projectIndex]?.id ?? null);
      const billable = rng.chance(0.75);
      const slot = invoices.firstSlot[client.index] ?? -1;
      const invoiced = billable && (invoices.slotCount[client.index] ?? 0) > 0 && rng.chance(0.8);
      const id = rng.uuid();
      await g.record('expense', {
        id,
        clientId: client.id,
        projectId,
        invoiceId: invoiced ? (invoices.stubs[slot]?.id ?? null) : null,
        category,
        customCategory: category === 'OTHER' ? description : null,
        description,
        amount: amount.text,
        currency: client.currency,
        billable,
        expenseDate: isoDate(rng.between(month.firstDay, month.lastDay)),
      });
      if (invoiced) {
        const line = { kind: 'EXPENSE', expenseId: id, projectId, description, quantity: '1', unitPrice: amount.text };
        lines[slot]?.push(extraLine(rng, line, amount));
      }
    }
  }
  return lines;
}

function extraLine(rng: Random, fields: Record<string, string | null>, amount: Amount): ExtraLine {
  const json = JSON.stringify({ id: rng.uuid(), timeEntryId: null, ...fields, amount: amount.text });
  return { json, amount: amount.value };
}

/**
 * Writes the month's invoices. TIME lines come from `refs` (target = invoice slot), one per
 * entry: quantity = hours, unitPrice = the project's hourly rate, amount = seconds x rate /
 * 3600 rounded to the invoice currency. The record is streamed line by line, with the
 * totals after the lines, so an invoice of any size needs no buffer.
 */
export async function writeMonthInvoices(
  g: Generation,
  model: WorkspaceModel,
  month: Month,
  invoices: MonthInvoices,
  refs: EntryRefs,
  expenseLines: ExtraLine[][],
): Promise<void> {
  const { order, starts } = refs.groupByTarget(invoices.stubs.length);
  for (let slot = 0; slot < invoices.stubs.length; slot++) {
    const stub = invoices.stubs[slot];
    if (!stub) continue;
    const from = starts[slot] ?? 0;
    const to = starts[slot + 1] ?? from;
    await writeInvoice(g, model, month, stub, refs, order.subarray(from, to), expenseLines[slot] ?? []);
  }
}

async function writeInvoice(
  g: Generation,
  model: WorkspaceModel,
  month: Month,
  stub: InvoiceStub,
  refs: EntryRefs,
  entries: Int32Array,
  expenseLines: ExtraLine[],
): Promise<void> {
  const { writer } = g;
  writer.push(`{"type":"invoice","id":"${stub.id}","clientId":"${stub.client.id}","lines":[`);
  let subtotal = ZERO;
  let lineCount = 0;
  for (const i of entries) {
    const line = timeLine(g, model, refs, i);
    writer.push(lineCount++ === 0 ? line.json : `,${line.json}`);
    subtotal = subtotal.plus(line.amount);
    if (writer.full) await writer.flush();
  }
  const extras = [...expenseLines, ...otherLines(g, model, stub)];
  // An invoice always has at least one line, so its subtotal is positive.
  if (lineCount + extras.length === 0) extras.push(otherLine(g.invoiceRandom, stub));
  for (const line of extras) {
    writer.push(lineCount++ === 0 ? line.json : `,${line.json}`);
    subtotal = subtotal.plus(line.amount);
  }
  writer.push(`],${JSON.stringify(invoiceFields(g, month, stub, subtotal)).slice(1)}\n`);
  g.counts.invoice++;
  if (writer.full) await writer.flush();
}

function timeLine(g: Generation, model: WorkspaceModel, refs: EntryRefs, i: number): { json: string; amount: Money } {
  const project = model.projects[refs.get('project', i)];
  if (!project) throw new Error('invoice line without project');
  const task = project.tasks[refs.get('task', i)];
  const seconds = refs.get('seconds', i);
  const amount = g.rates.timeAmount(project.rateKey, seconds);
  const json =
    `{"id":"${g.invoiceRandom.uuid()}","kind":"TIME","timeEntryId":"${refs.id(i)}","expenseId":null,` +
    `"projectId":"${project.id}","description":${task?.nameJson ?? project.nameJson},` +
    `"subtitle":${model.users[refs.get('user', i)]?.nameJson ?? 'null'},"detail":"${isoDate(refs.get('day', i))}",` +
    `"groupLabel":${project.nameJson},"quantity":"${g.rates.hours(seconds)}",` +
    `"unitPrice":"${project.hourlyRate}","amount":"${amount.text}"}`;
  return { json, amount: amount.value };
}

/** Fixed-fee milestones (25% of a FIXED project's fee, a quarter of the time) and an OTHER line (20%). */
function otherLines(g: Generation, model: WorkspaceModel, stub: InvoiceStub): ExtraLine[] {
  const rng = g.invoiceRandom;
  const lines: ExtraLine[] = [];
  if (!stub.firstOfClient) return lines;
  for (const index of stub.client.projects) {
    const project = model.projects[index];
    if (!project?.fixedFee || !rng.chance(0.25)) continue;
    const amount = percentOf(project.fixedFee.value, 25, stub.client.currency);
    const fields = { kind: 'FIXED_FEE', expenseId: null, projectId: project.id, description: `${project.name}: milestone` };
    lines.push(extraLine(rng, { ...fields, quantity: '1', unitPrice: amount.text }, amount));
  }
  if (rng.chance(0.2)) lines.push(otherLine(rng, stub));
  return lines;
}

function otherLine(rng: Random, stub: InvoiceStub): ExtraLine {
  const amount = priceIn(rng.between(2, 40) * 25, stub.client.currency);
  const fields = { kind: 'OTHER', expenseId: null, projectId: null, description: rng.pick(OTHER_LINE_DESCRIPTIONS) };
  return extraLine(rng, { ...fields, quantity: '1', unitPrice: amount.text }, amount);
}

/**
 * Header figures. discount: 15% of invoices, 5 or 10% of the subtotal; tax = (subtotal -
 * discount) x taxRate / 100 rounded; total = subtotal - discount + tax. Paid: PAID pays the
 * total (3% overpay); SENT is unpaid or partially paid; CANCELLED is unpaid or refunded.
 */
function invoiceFields(g: Generation, month: Month, stub: InvoiceStub, subtotal: Money): object {
  const rng = g.invoiceRandom;
  const { client, status } = stub;
  const currency = client.currency;
  const discount = rng.chance(0.15) ? percentOf(subtotal, rng.pick([5, 10]), currency) : amountOf(ZERO, currency);
  const net = subtotal.minus(discount.value);
  const tax = client.taxRate === null ? ZERO : percentOf(net, client.taxRate, currency).value;
  const total = amountOf(net.plus(tax), currency);
  const paid = invoicePayment(rng, status, total, currency);
  const issueDay = status === 'DRAFT' && month.age === 0 ? null : month.endDay;
  const sent = status !== 'DRAFT' && issueDay !== null;
  const paidDay = issueDay === null ? g.today : Math.min(g.today, issueDay + rng.between(5, 45));
  return {
    number: stub.number,
    status,
    paymentStatus: paid.status,
    currency,
    issueDate: issueDay === null ? null : isoDate(issueDay),
    dueDate: issueDay === null ? null : isoDate(issueDay + client.paymentTermsDays),
    subtotal: amountOf(subtotal, currency).text,
    discountAmount: discount.text,
    taxRate: client.taxRate,
    total: total.text,
    amountPaid: paid.amount.text,
    poNumber: client.requirePoNumber || rng.chance(0.1) ? `PO-${rng.between(10_000, 99_999)}` : null,
    recurring: rng.chance(0.1),
    viewed: sent && rng.chance(0.85),
    billToName: client.name,
    notes: rng.chance(0.2) ? 'Thank you for your business.' : null,
    sentAt: sent && issueDay !== null ? isoTimestamp(issueDay, 9 * 3600) : null,
    paidAt: status === 'PAID' ? isoTimestamp(paidDay, 12 * 3600) : null,
  };
}

function invoicePayment(
  rng: Random,
  status: InvoiceStatus,
  total: Amount,
  currency: GeneratedCurrency,
): { status: 'unpaid' | 'partially_paid' | 'paid' | 'refunded'; amount: Amount } {
  const unpaid = { status: 'unpaid' as const, amount: amountOf(ZERO, currency) };
  switch (status) {
    case 'DRAFT':
      return unpaid;
    case 'PAID': {
      if (!rng.chance(0.03)) return { status: 'paid', amount: total };
      const extra = priceIn(rng.between(1, 20), currency);
      return { status: 'paid', amount: amountOf(total.value.plus(extra.value), currency) };
    }
    case 'SENT':
    case 'CANCELLED': {
      const part = percentOf(total.value, rng.between(10, 90), currency);
      const partial = part.value.greaterThan(0) && part.value.lessThan(total.value);
      if (!partial || rng.chance(status === 'SENT' ? 0.55 : 0.7)) return unpaid;
      return { status: status === 'SENT' ? 'partially_paid' : 'refunded', amount: part };
    }
  }
}
