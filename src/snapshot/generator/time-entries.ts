import { isoDate, isoTimestamp, type Month } from './calendar.ts';
import type { Generation } from './context.ts';
import type { EntryRefs } from './entry-refs.ts';
import type { MonthInvoices } from './invoices.ts';
import { payeeRateAt, type ProjectModel, type UserModel, type WorkspaceModel } from './model.ts';
import { ENTRY_NOTES } from './names.ts';
import { formatUuid, type Random } from './random.ts';

const HOUR = 3600;
const idWords = new Uint32Array(4);
// Precomputed JSON fragments of entry lines: few pieces per line keep encoding cheap.
const NOTE_FIELDS = ENTRY_NOTES.map((n) => `"note":${JSON.stringify(n)}`);
const NO_NOTE = '"note":null';
const NO_TIMER = '"startedAt":null,"stoppedAt":null';
const FLAG_FIELDS = [
  ['"billable":false,"isRunning":false', '"billable":false,"isRunning":true'],
  ['"billable":true,"isRunning":false', '"billable":true,"isRunning":true'],
] as const;

/** One user's work in one month: how many entries, and where they may be invoiced and billed. */
export interface UserMonth {
  month: Month;
  user: UserModel;
  count: number;
  invoices: MonthInvoices;
  /** The user's payee gets a bill for this month (so their entries of it go on bill lines). */
  billed: boolean;
}

interface DrawnEntry {
  project: ProjectModel;
  /** Index into project.tasks, or -1. */
  task: number;
  day: number;
  seconds: number;
  billable: boolean;
  running: boolean;
  deleted: boolean;
  /** Second of the day the timer started, or -1 for a manual entry. */
  startSecond: number;
}

/**
 * Splits `total` into parts proportional to integer `weights`, exactly (the parts sum to
 * `total`): part i = floor(W_i+1 * total / W) - floor(W_i * total / W) over cumulative weights.
 */
export function splitByWeights(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  let cumulative = 0;
  return weights.map((w) => {
    const before = Math.floor((cumulative * total) / sum);
    cumulative += w;
    return Math.floor((cumulative * total) / sum) - before;
  });
}

/**
 * Writes the time entries of one user-month and records, in the month's refs, the entries
 * that go on an invoice line (`invoiceRefs`, target = invoice slot) and on the payee's bill
 * (`billRefs`, rate = pay rate key). Rules: an entry on an invoice or bill is billable (or,
 * for bills, paid non-billable work), not running, not deleted and longer than 0 s; a bill
 * takes only entries on or after the payee's start date that have a pay rate.
 */
export async function writeUserMonthEntries(
  g: Generation,
  model: WorkspaceModel,
  work: UserMonth,
  invoiceRefs: EntryRefs,
  billRefs: EntryRefs,
): Promise<void> {
  const rng = g.entryRandom;
  const { user, count } = work;
  for (let j = 0; j < count; j++) {
    const entry = drawEntry(g, model, work, j);
    rng.uuidWords(idWords, 0);
    const id = formatUuid(idWords[0] ?? 0, idWords[1] ?? 0, idWords[2] ?? 0, idWords[3] ?? 0);
    const live = !entry.running && !entry.deleted && entry.seconds > 0;
    const ref = {
      project: entry.project.index,
      task: entry.task,
      user: user.index,
      day: entry.day,
      seconds: entry.seconds,
      rate: -1,
      target: -1,
    };

    ref.target = live && entry.billable ? invoiceSlot(rng, work.invoices, entry.project) : -1;
    if (ref.target >= 0) invoiceRefs.push(idWords, 0, ref);
    const invoiceId = ref.target >= 0 ? (work.invoices.stubs[ref.target]?.id ?? null) : null;

    ref.rate = live && work.billed ? payRateKey(rng, user, entry) : -1;
    if (ref.rate >= 0) billRefs.push(idWords, 0, ref);

    g.writer.push(entryLine(id, user, entry, invoiceId, rng, g.today));
    g.counts.timeEntry++;
    if (g.writer.full) await g.writer.flush();
  }
}

function drawEntry(g: Generation, model: WorkspaceModel, work: UserMonth, j: number): DrawnEntry {
  const rng = g.entryRandom;
  const { user, month, count } = work;
  // Skewed towards the first projects of the user's list: people have main projects.
  const skew = rng.float();
  const projectIndex = user.projects[Math.floor(skew * skew * user.projects.length)] ?? 0;
  const project = model.projects[projectIndex];
  if (!project) throw new Error(`user ${user.id} has no project`);
  const task = project.tasks.length > 0 && rng.chance(0.85) ? rng.int(project.tasks.length) : -1;
  const running = month.age === 0 && user.runsTimer && j === count - 1;
  const seconds = running ? (rng.chance(0.5) ? 0 : rng.between(60, 3 * HOUR)) : drawSeconds(rng);
  const taskBillable = task < 0 || (project.tasks[task]?.billable ?? true);
  return {
    project,
    task,
    day: running ? g.today : drawDay(rng, month, j, count),
    seconds,
    billable: project.rateType !== 'NON_BILLABLE' && taskBillable && rng.chance(0.94),
    running,
    deleted: !running && rng.chance(0.005),
    startSecond: running || rng.chance(0.4) ? rng.between(7 * 60, 11 * 60) * 60 : -1,
  };
}

/**
 * The RateBook key of the pay rate for a live entry on the payee's bill, or -1: the entry
 * must be on or after the payee's start date and have a pay rate. Non-billable work is paid
 * half the time; 2% of work is forgotten and stays unpaid.
 */
function payRateKey(rng: Random, user: UserModel, entry: DrawnEntry): number {
  const payee = user.payee;
  if (!payee || (payee.startDay !== null && entry.day < payee.startDay)) return -1;
  const rate = payeeRateAt(payee, entry.day);
  if (!rate || !(entry.billable || rng.chance(0.5)) || rng.chance(0.02)) return -1;
  return rate.key;
}

/**
 * Durations: 80% whole quarter hours up to 8 h, 17% five-minute steps, 3% exact timer
 * seconds up to 4 h, and 0.4% zero (a timer stopped at once).
 */
function drawSeconds(rng: Random): number {
  const r = rng.float();
  if (r < 0.004) return 0;
  if (r < 0.8) return rng.between(1, 32) * 900;
  if (r < 0.97) return rng.between(1, 96) * 300;
  return rng.between(60, 4 * HOUR);
}

/** Spreads a user-month's entries over its working days in order; 3% fall on a weekend. */
function drawDay(rng: Random, month: Month, j: number, count: number): number {
  if (month.weekendDays.length > 0 && (month.workingDays.length === 0 || rng.chance(0.03))) {
    return rng.pick(month.weekendDays);
  }
  const days = month.workingDays;
  return (
    days[Math.min(days.length - 1, Math.floor(((j + rng.float()) * days.length) / count))] ??
    month.firstDay
  );
}

/**
 * The invoice slot of a billable entry, or -1: only HOURLY client projects are invoiced by
 * time, only when the client has an invoice this month, and then `share` of the entries.
 */
function invoiceSlot(rng: Random, invoices: MonthInvoices, project: ProjectModel): number {
  if (project.rateType !== 'HOURLY' || project.clientIndex === null) return -1;
  const slots = invoices.slotCount[project.clientIndex] ?? 0;
  if (slots === 0 || !rng.chance(invoices.share)) return -1;
  const first = invoices.firstSlot[project.clientIndex] ?? 0;
  return slots === 1 ? first : first + rng.int(slots);
}

function entryLine(
  id: string,
  user: UserModel,
  e: DrawnEntry,
  invoiceId: string | null,
  rng: Random,
  today: number,
): string {
  const projectTask = e.project.lineFields[e.task + 1]?.entry;
  const invoice = invoiceId === null ? 'null' : `"${invoiceId}"`;
  const flags = FLAG_FIELDS[e.billable ? 1 : 0][e.running ? 1 : 0];
  let timer = NO_TIMER;
  if (e.startSecond >= 0) {
    const stopped = e.running ? 'null' : `"${isoTimestamp(e.day, e.startSecond + e.seconds)}"`;
    timer = `"startedAt":"${isoTimestamp(e.day, e.startSecond)}","stoppedAt":${stopped}`;
  }
  const note = rng.chance(0.6) ? rng.pick(NOTE_FIELDS) : NO_NOTE;
  const deleted = e.deleted ? `"${isoTimestamp(Math.min(e.day + 1, today), 17 * HOUR)}"` : 'null';
  return (
    `{"type":"timeEntry","id":"${id}","userId":"${user.id}",${projectTask},"invoiceId":${invoice},` +
    `"entryDate":"${isoDate(e.day)}","durationSeconds":${e.seconds},${flags},${timer},${note},` +
    `"deletedAt":${deleted}}\n`
  );
}
