import type { RecordType } from '../records.ts';
import { RateBook } from './amounts.ts';
import type { Month } from './calendar.ts';
import type { BufferedTextWriter } from '../buffered-text-writer.ts';
import { Random } from './random.ts';

export type Plan = 'free' | 'solo' | 'studio' | 'agency';

/** The generator's options with every default filled in. */
export interface Settings {
  seed: number;
  timeEntries: number;
  clients: number;
  projects: number;
  invoices: number;
  members: number;
  plan: Plan;
  today: number;
  /** The months of the range, oldest first; the last one is today's month. */
  months: Month[];
}

export type LineType = 'workspace' | RecordType;

/**
 * One run of the generator: settings, the output, counters, and one random stream per
 * concern (setup, entries, invoices, bills, payments), so that a change in how one concern
 * draws leaves the others' sequences alone.
 */
export class Generation {
  readonly counts: Record<LineType, number> = {
    workspace: 0,
    user: 0,
    member: 0,
    token: 0,
    client: 0,
    project: 0,
    task: 0,
    timeEntry: 0,
    expense: 0,
    invoice: 0,
    payee: 0,
    bill: 0,
    payment: 0,
    fxRate: 0,
  };
  readonly rates = new RateBook();
  readonly setupRandom: Random;
  readonly entryRandom: Random;
  readonly invoiceRandom: Random;
  readonly billRandom: Random;
  readonly paymentRandom: Random;
  readonly today: number;
  private readonly tallies = new Map<string, number>();

  constructor(
    readonly settings: Settings,
    readonly writer: BufferedTextWriter,
  ) {
    this.today = settings.today;
    this.setupRandom = new Random(settings.seed, 1);
    this.entryRandom = new Random(settings.seed, 2);
    this.invoiceRandom = new Random(settings.seed, 3);
    this.billRandom = new Random(settings.seed, 4);
    this.paymentRandom = new Random(settings.seed, 5);
  }

  /** Writes one record line: `{"type": ..., ...fields}`. */
  async record(type: LineType, fields: object): Promise<void> {
    this.counts[type]++;
    await this.writer.write(`${JSON.stringify({ type, ...fields })}\n`);
  }

  /**
   * 0, 1, 2, ... on successive calls with the same key. Rare cases are placed on every n-th
   * occurrence (`nth(key) % n === k`) rather than drawn, so a small workspace has them too.
   */
  nth(key: string): number {
    const n = this.tallies.get(key) ?? 0;
    this.tallies.set(key, n + 1);
    return n;
  }

  /** The first day of the generated range. */
  get rangeStart(): number {
    return this.settings.months[0]?.firstDay ?? this.today;
  }
}
