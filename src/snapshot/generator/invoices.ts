import { Money } from '../../money/money.ts';
import {
  amountOf,
  percentOf,
  priceIn,
  AmountSum,
  ZERO,
  type Amount,
  type GeneratedCurrency,
} from './amounts.ts';
import { isoDate, isoTimestamp, type Month } from './calendar.ts';
import type { Generation } from './context.ts';
import type { EntryRefs } from './entry-refs.ts';
import type { ClientModel, WorkspaceModel } from './model.ts';
import { EXPENSE_DESCRIPTIONS, OTHER_LINE_DESCRIPTIONS } from './names.ts';
import type { Random } from './random.ts';
import { EXPENSE_CATEGORIES } from '../../value-sets.ts';

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

/** An invoice line, already JSON, with its amount. */
interface InvoiceLine {
  json: string;
  amount: Amount;
}

/**
 * Spreads `settings.invoices` invoices evenly over the (client, month) slots: slot s of S
 * gets floor((s+1)K/S) - floor(sK/S) invoices, so the total is exactly K. Status by age:
 * the current month's invoices are drafts; older ones are mostly PAID, some SENT, a few
 * CANCELLED.
 */
export function planInvoices(
  g: Generation,
  model: WorkspaceModel,
  month: Month,
  nextNumber: () => string,
): MonthInvoices {
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
      stubs.push({
        id: rng.uuid(),
        number: nextNumber(),
        client,
        status: invoiceStatus(g, month),
        firstOfClient: k === 0,
      });
    }
  }
  return { stubs, firstSlot, slotCount, share: month.age === 0 ? 0.5 : 0.92 };
}

/** Every 20th invoice older than last month is CANCELLED. */
function invoiceStatus(g: Generation, month: Month): InvoiceStatus {
  if (month.age === 0) return 'DRAFT';
  if (month.age > 1 && g.nth('past invoice') % 20 === 7) return 'CANCELLED';
  const statuses = ['DRAFT', 'SENT', 'PAID'] as const;
  return (
    statuses[g.invoiceRandom.weighted(month.age === 1 ? [35, 45, 20] : [2, 20, 78])] ?? 'DRAFT'
  );
}

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
): Promise<InvoiceLine[][]> {
  const rng = g.invoiceRandom;
  const lines: InvoiceLine[][] = invoices.stubs.map(() => []);
  for (const client of model.clients) {
    const count = rng.weighted([55, 35, 10]);
    for (let k = 0; k < count; k++) {
      const category = EXPENSE_CATEGORIES[rng.weighted([25, 15, 15, 15, 10, 10, 10])] ?? 'OTHER';
      const description = rng.pick(EXPENSE_DESCRIPTIONS[category] ?? ['Expense']);
      const amount = priceIn(
        new Money(rng.between(500, 80_000)).div(100).toFixed(2),
        client.currency,
      );
      const projectIndex =
        client.projects.length > 0 && rng.chance(0.6) ? rng.pick(client.projects) : null;
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
        const line = {
          kind: 'EXPENSE',
          expenseId: id,
          projectId,
          description,
          quantity: '1',
          unitPrice: amount.text,
        };
        lines[slot]?.push(extraLine(rng, line, amount));
      }
    }
  }
  return lines;
}

function extraLine(
  rng: Random,
  fields: Record<string, string | null>,
  amount: Amount,
): InvoiceLine {
  // Keys in the order of the exporter (the columns of tables.ts): the importer's byte path
  // takes only that form (plain-lines.ts).
  const json = JSON.stringify({
    id: rng.uuid(),
    kind: fields.kind,
    timeEntryId: null,
    ...fields,
    amount: amount.text,
  });
  return { json, amount };
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
  expenseLines: InvoiceLine[][],
): Promise<void> {
  const { order, starts } = refs.groupByTarget(invoices.stubs.length);
  for (let slot = 0; slot < invoices.stubs.length; slot++) {
    const stub = invoices.stubs[slot];
    if (!stub) continue;
    const from = starts[slot] ?? 0;
    const to = starts[slot + 1] ?? from;
    await writeInvoice(
      g,
      model,
      month,
      stub,
      refs,
      order.subarray(from, to),
      expenseLines[slot] ?? [],
    );
  }
}

async function writeInvoice(
  g: Generation,
  model: WorkspaceModel,
  month: Month,
  stub: InvoiceStub,
  refs: EntryRefs,
  entries: Int32Array,
  expenseLines: InvoiceLine[],
): Promise<void> {
  const { writer } = g;
  writer.push(`{"type":"invoice","id":"${stub.id}","clientId":"${stub.client.id}","lines":[`);
  const subtotal = new AmountSum(stub.client.currency);
  let lineCount = 0;
  for (const i of entries) {
    const line = timeLine(g, model, refs, i);
    writer.push(lineCount++ === 0 ? line.json : `,${line.json}`);
    subtotal.add(line.amount);
    if (writer.full) await writer.flush();
  }
  const extras = [...expenseLines, ...otherLines(g, model, month, stub)];
  // An invoice always has at least one line, so its subtotal is positive.
  if (lineCount + extras.length === 0) extras.push(otherLine(g.invoiceRandom, stub));
  for (const line of extras) {
    writer.push(lineCount++ === 0 ? line.json : `,${line.json}`);
    subtotal.add(line.amount);
  }
  writer.push(`],${JSON.stringify(invoiceFields(g, month, stub, subtotal.value)).slice(1)}\n`);
  g.counts.invoice++;
  if (writer.full) await writer.flush();
}

function timeLine(g: Generation, model: WorkspaceModel, refs: EntryRefs, i: number): InvoiceLine {
  const project = model.projects[refs.get('project', i)];
  const fields = project?.lineFields[refs.get('task', i) + 1];
  if (!project || !fields) throw new Error('invoice line without project');
  const charge = g.rates.charge(project.rateKey, refs.get('seconds', i));
  const user = model.users[refs.get('user', i)];
  // Few, precomputed pieces: a string concatenated from many is slow to encode.
  const json =
    `{"id":"${g.invoiceRandom.uuid()}","kind":"TIME","timeEntryId":"${refs.id(i)}","expenseId":null,` +
    `"projectId":"${project.id}","description":${fields.description},"subtitle":${user?.nameJson ?? 'null'},` +
    `"detail":"${isoDate(refs.get('day', i))}","groupLabel":${project.nameJson},${charge.invoiceFields}}`;
  return { json, amount: charge.amount };
}

/**
 * Fixed-fee milestones, quarterly: 25% of a FIXED project's fee on the client's first invoice
 * of every fourth month (offset by project); and an OTHER line on 20% of invoices.
 */
function otherLines(
  g: Generation,
  model: WorkspaceModel,
  month: Month,
  stub: InvoiceStub,
): InvoiceLine[] {
  const rng = g.invoiceRandom;
  const lines: InvoiceLine[] = [];
  if (!stub.firstOfClient) return lines;
  for (const index of stub.client.projects) {
    const project = model.projects[index];
    if (!project?.fixedFee || (month.index + index) % 4 !== 0) continue;
    const amount = percentOf(project.fixedFee.value, 25, stub.client.currency);
    const fields = {
      kind: 'FIXED_FEE',
      expenseId: null,
      projectId: project.id,
      description: `${project.name}: milestone`,
    };
    lines.push(extraLine(rng, { ...fields, quantity: '1', unitPrice: amount.text }, amount));
  }
  if (rng.chance(0.2)) lines.push(otherLine(rng, stub));
  return lines;
}

function otherLine(rng: Random, stub: InvoiceStub): InvoiceLine {
  const amount = priceIn(rng.between(2, 40) * 25, stub.client.currency);
  const fields = {
    kind: 'OTHER',
    expenseId: null,
    projectId: null,
    description: rng.pick(OTHER_LINE_DESCRIPTIONS),
  };
  return extraLine(rng, { ...fields, quantity: '1', unitPrice: amount.text }, amount);
}

/**
 * Header figures. discount: 15% of invoices, 5 or 10% of the subtotal; tax = (subtotal -
 * discount) x taxRate / 100 rounded; total = subtotal - discount + tax. Drafts of the current
 * month have no dates yet; other invoices are issued on the last day of their month.
 */
function invoiceFields(g: Generation, month: Month, stub: InvoiceStub, subtotal: Money): object {
  const rng = g.invoiceRandom;
  const { client, status } = stub;
  const currency = client.currency;
  const discount = rng.chance(0.15)
    ? percentOf(subtotal, rng.pick([5, 10]), currency)
    : amountOf(ZERO, currency);
  const net = subtotal.minus(discount.value);
  const tax = client.taxRate === null ? ZERO : percentOf(net, client.taxRate, currency).value;
  const total = amountOf(net.plus(tax), currency);
  const paid = invoicePayment(g, status, total, currency);
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
    poNumber:
      client.requirePoNumber || rng.chance(0.1) ? `PO-${rng.between(10_000, 99_999)}` : null,
    recurring: rng.chance(0.1),
    viewed: sent && rng.chance(0.85),
    billToName: client.name,
    notes: rng.chance(0.2) ? 'Thank you for your business.' : null,
    sentAt: sent ? isoTimestamp(month.endDay, 9 * 3600) : null,
    paidAt: status === 'PAID' ? isoTimestamp(paidDay, 12 * 3600) : null,
  };
}

/**
 * What the client paid: PAID pays the total, every 25th PAID invoice overpays; SENT is
 * unpaid or partially paid; CANCELLED is unpaid, or refunded after a partial payment.
 */
function invoicePayment(
  g: Generation,
  status: InvoiceStatus,
  total: Amount,
  currency: GeneratedCurrency,
): { status: 'unpaid' | 'partially_paid' | 'paid' | 'refunded'; amount: Amount } {
  const rng = g.invoiceRandom;
  const unpaid = { status: 'unpaid' as const, amount: amountOf(ZERO, currency) };
  switch (status) {
    case 'DRAFT':
      return unpaid;
    case 'PAID': {
      if (g.nth('paid invoice') % 25 !== 3) return { status: 'paid', amount: total };
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
