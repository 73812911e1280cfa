import type { Money } from '../../money/money.ts';
import {
  amountOf,
  AmountSum,
  percentOf,
  priceIn,
  type Amount,
  type GeneratedCurrency,
} from './amounts.ts';
import { isoDate, isoTimestamp, type Month } from './calendar.ts';
import type { Generation } from './context.ts';
import type { EntryRefs } from './entry-refs.ts';
import type { PayeeModel, WorkspaceModel } from './model.ts';
import { BILL_BONUS_REASONS, BILL_DEDUCTION_REASONS, VOID_REASONS } from './names.ts';
import type { PayableBill, PaymentWriter } from './payments.ts';
import type { Random } from './random.ts';

/**
 * What a payee-month gets: no bill, a DRAFT, an APPROVED bill, or a VOID bill followed by an
 * APPROVED replacement with the same entries (VOID lines do not count:
 * docs/contract.md, "Bill amounts").
 */
export type BillPlan = 'NONE' | 'DRAFT' | 'APPROVED' | 'VOIDED';

/**
 * The current month is never billed; last month is often still a draft; older ones are
 * approved, and every 20th of those was voided and re-issued.
 */
export function planBill(g: Generation, month: Month): BillPlan {
  if (month.age === 0) return 'NONE';
  if (month.age > 1 && g.nth('past bill') % 20 === 4) return 'VOIDED';
  const plans = ['NONE', 'DRAFT', 'APPROVED'] as const;
  return plans[g.billRandom.weighted(month.age === 1 ? [15, 45, 40] : [3, 4, 93])] ?? 'NONE';
}

interface BillLine {
  json: string;
  amount: Amount;
}

interface BillSpec {
  number: string;
  status: 'DRAFT' | 'APPROVED' | 'VOID';
  note: string | null;
}

/** Writes team bills (one per payee and month) and hands approved ones to the payments. */
export class BillWriter {
  private sequence = 0;

  constructor(
    private readonly g: Generation,
    private readonly model: WorkspaceModel,
    private readonly payments: PaymentWriter,
  ) {}

  /**
   * Bills the entries in `refs` (one payee-month, `rate` = pay rate key). A VOIDED plan
   * writes the VOID bill and its APPROVED replacement; an entry is thus on at most one
   * line of all APPROVED bills.
   */
  async writePayeeMonth(
    month: Month,
    payee: PayeeModel,
    plan: BillPlan,
    refs: EntryRefs,
  ): Promise<void> {
    if (plan === 'NONE' || refs.length === 0) return;
    let note: string | null = null;
    if (plan === 'VOIDED') {
      const voided = this.nextNumber();
      await this.writeBill(month, payee, refs, { number: voided, status: 'VOID', note: null });
      note = `Replaces ${voided}`;
    }
    const status = plan === 'DRAFT' ? 'DRAFT' : 'APPROVED';
    const bill = await this.writeBill(month, payee, refs, {
      number: this.nextNumber(),
      status,
      note,
    });
    if (status === 'APPROVED') await this.payments.payBill(month, payee, bill);
  }

  private nextNumber(): string {
    this.sequence++;
    return `TB-${String(this.sequence).padStart(6, '0')}`;
  }

  /**
   * Streams one bill: TIME lines first (amount = durationSeconds x hourlyRate / 3600
   * rounded to the bill currency, which is the pay rate's), then 12% get an ADJUSTMENT line,
   * a bonus or a deduction of 5% of the subtotal; the header fields follow the lines.
   */
  private async writeBill(
    month: Month,
    payee: PayeeModel,
    refs: EntryRefs,
    spec: BillSpec,
  ): Promise<PayableBill> {
    const { g } = this;
    const rng = g.billRandom;
    const id = rng.uuid();
    const currency = g.rates.currency(refs.get('rate', 0)) as GeneratedCurrency;
    g.writer.push(`{"type":"bill","id":"${id}","payeeId":"${payee.id}","lines":[`);
    const total = new AmountSum(currency);
    for (let i = 0; i < refs.length; i++) {
      const line = this.timeLine(refs, i, currency);
      g.writer.push(i === 0 ? line.json : `,${line.json}`);
      total.add(line.amount);
      if (g.writer.full) await g.writer.flush();
    }
    const adjustment = rng.chance(0.12) ? this.adjustment(rng, total.value, currency) : null;
    if (adjustment) {
      g.writer.push(`,${adjustment.json}`);
      total.add(adjustment.amount);
    }
    const issueDay = month.endDay + 1;
    const issued = spec.status !== 'DRAFT';
    const fields = {
      number: spec.number,
      status: spec.status,
      revision: spec.status !== 'VOID' && rng.chance(0.1) ? 2 : 1,
      currency,
      serviceFrom: isoDate(month.firstDay),
      serviceTo: isoDate(month.endDay),
      issueDate: issued ? isoDate(issueDay) : null,
      dueDate: issued ? isoDate(issueDay + 14) : null,
      approvedAt: issued ? isoTimestamp(issueDay, 10 * 3600) : null,
      note: spec.note,
      voidReason: spec.status === 'VOID' ? rng.pick(VOID_REASONS) : null,
      lineGroupBy: rng.pick(['project', 'task', 'date']),
      showProjectName: rng.chance(0.8),
      showTaskName: rng.chance(0.4),
    };
    g.writer.push(`],${JSON.stringify(fields).slice(1)}\n`);
    g.counts.bill++;
    if (g.writer.full) await g.writer.flush();
    return { id, currency, total: total.value, issueDay };
  }

  private timeLine(refs: EntryRefs, i: number, currency: string): BillLine {
    const { g, model } = this;
    const rateKey = refs.get('rate', i);
    // Rates switch currency only on the first of a month, so a month has one pay currency.
    if (g.rates.currency(rateKey) !== currency)
      throw new Error('pay currency changed within a month');
    const fields = model.projects[refs.get('project', i)]?.lineFields[refs.get('task', i) + 1];
    if (!fields) throw new Error('bill line without project');
    const charge = g.rates.charge(rateKey, refs.get('seconds', i));
    // Few, precomputed pieces: a string concatenated from many is slow to encode.
    const json =
      `{"id":"${g.billRandom.uuid()}","kind":"TIME","timeEntryId":"${refs.id(i)}",${fields.entry},` +
      `"workDate":"${isoDate(refs.get('day', i))}",${charge.billFields},"description":${fields.description}}`;
    return { json, amount: charge.amount };
  }

  private adjustment(rng: Random, subtotal: Money, currency: GeneratedCurrency): BillLine | null {
    const bonus = rng.chance(0.6);
    const amount = bonus
      ? priceIn(rng.between(2, 12) * 25, currency)
      : amountOf(percentOf(subtotal, 5, currency).value.negated(), currency);
    if (amount.value.isZero()) return null;
    const description = rng.pick(bonus ? BILL_BONUS_REASONS : BILL_DEDUCTION_REASONS);
    const line = {
      id: rng.uuid(),
      kind: 'ADJUSTMENT',
      timeEntryId: null,
      quantity: '1',
      unitPrice: amount.text,
    };
    return {
      json: JSON.stringify({ ...line, amount: amount.text, description }),
      amount,
    };
  }
}
