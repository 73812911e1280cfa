import type { Writable } from 'node:stream';
import { z } from 'zod';
import { snapshotDate as isoDateSchema } from '../value-schemas.ts';
import { planSchema, SNAPSHOT_VERSION } from './records.ts';
import { BASE_CURRENCY } from './generator/amounts.ts';
import { BillWriter, planBill } from './generator/bills.ts';
import { monthsUpTo, parseDay, type Month } from './generator/calendar.ts';
import {
  buildClients,
  buildProjects,
  writeClients,
  writeProjectsAndTasks,
} from './generator/catalog.ts';
import { Generation, type Settings } from './generator/context.ts';
import { EntryRefs } from './generator/entry-refs.ts';
import { writeFxRates } from './generator/fx-rates.ts';
import {
  planInvoices,
  writeMonthExpenses,
  writeMonthInvoices,
  type MonthInvoices,
} from './generator/invoices.ts';
import type { WorkspaceModel } from './generator/model.ts';
import { WORKSPACE_NAMES } from './generator/names.ts';
import { BufferedTextWriter } from './buffered-text-writer.ts';
import { PaymentWriter } from './generator/payments.ts';
import {
  buildPayees,
  buildUsers,
  slug,
  writePayees,
  writeTokens,
  writeUsersAndMembers,
} from './generator/people.ts';
import { splitByWeights, writeUserMonthEntries } from './generator/time-entries.ts';

export interface GenerateOptions {
  /** Total time entries. */
  timeEntries: number;
  /** Integer seed: the same options give byte-identical output. */
  seed: number;
  /** Default: timeEntries / 2000, within 5..2000. */
  clients?: number;
  /** Default: 3 per client (every tenth project is internal, without client). */
  projects?: number;
  /** Default: 60% of the (client, month) pairs. */
  invoices?: number;
  /** Users, each a member. Default: sqrt(timeEntries) / 8, within 6..400; at least 4. */
  members?: number;
  /** 'YYYY-MM-DD' every date derives from (never the clock). Default '2026-11-15'. */
  today?: string;
  /** Default 'agency'. */
  plan?: 'free' | 'solo' | 'studio' | 'agency';
}

/** Months of work before (and including) today's month. */
const RANGE_MONTHS = 18;

const optionsSchema = z.object({
  timeEntries: z.number().int().min(0).max(1_000_000_000),
  seed: z.number().int().refine(Number.isSafeInteger, 'must be a safe integer'),
  clients: z.number().int().min(1).max(100_000).optional(),
  projects: z.number().int().min(1).max(1_000_000).optional(),
  invoices: z.number().int().min(0).max(10_000_000).optional(),
  // Four members at least: one token per role needs an OWNER, ADMIN, MANAGER and MEMBER.
  members: z.number().int().min(4).max(100_000).optional(),
  today: isoDateSchema.optional(),
  plan: planSchema.optional(),
});

/**
 * Writes a deterministic, realistic agency workspace as an NDJSON snapshot
 * (docs/contract.md, "Workspace snapshot"): the workspace line first, then one record per line.
 *
 * Memory stays flat whatever `timeEntries` is: people, clients, projects and payees are held
 * (thousands at most); time entries are generated month by month and user by user, and the
 * invoice and bill lines that link them are kept as compact typed-array refs of one month
 * (invoices) or one user-month (bills), then streamed. Output respects backpressure; `out` is
 * not ended (the caller owns it). Throws a ZodError for invalid options.
 */
export async function generateWorkspace(
  options: GenerateOptions,
  out: Writable,
): Promise<{ counts: Record<string, number> }> {
  const g = new Generation(resolveSettings(options), new BufferedTextWriter(out));
  const model = await writeWorkspaceSetup(g);
  const billing = new BillWriter(g, model, new PaymentWriter(g));
  // Entries per month follow its working days (the current month only up to today).
  const perMonth = splitByWeights(
    g.settings.timeEntries,
    g.settings.months.map((m) => m.workingDays.length + 1),
  );
  const invoiceRefs = new EntryRefs();
  const billRefs = new EntryRefs();
  let invoiceNumber = 0;
  const nextInvoiceNumber = () => `INV-${String(++invoiceNumber).padStart(6, '0')}`;
  for (const month of g.settings.months) {
    const invoices = planInvoices(g, model, month, nextInvoiceNumber);
    invoiceRefs.clear();
    await writeMonthWork(g, model, month, perMonth[month.index] ?? 0, {
      invoices,
      invoiceRefs,
      billRefs,
      billing,
    });
    const expenseLines = await writeMonthExpenses(g, model, month, invoices);
    await writeMonthInvoices(g, model, month, invoices, invoiceRefs, expenseLines);
  }
  await g.writer.close();
  return { counts: { ...g.counts } };
}

function resolveSettings(options: GenerateOptions): Settings {
  const o = optionsSchema.parse(options);
  const today = parseDay(o.today ?? '2026-11-15');
  const clients = o.clients ?? clamp(Math.round(o.timeEntries / 2000), 5, 2000);
  return {
    seed: o.seed,
    timeEntries: o.timeEntries,
    clients,
    projects: o.projects ?? clients * 3,
    invoices: o.invoices ?? Math.round(clients * RANGE_MONTHS * 0.6),
    members: o.members ?? clamp(Math.round(Math.sqrt(o.timeEntries) / 8), 6, 400),
    plan: o.plan ?? 'agency',
    today,
    months: monthsUpTo(today, RANGE_MONTHS),
  };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** Builds the in-memory model and writes everything that is not per month. */
async function writeWorkspaceSetup(g: Generation): Promise<WorkspaceModel> {
  const rng = g.setupRandom;
  const name = rng.pick(WORKSPACE_NAMES);
  const id = rng.uuid();
  await g.record('workspace', {
    version: SNAPSHOT_VERSION,
    id,
    name,
    plan: g.settings.plan,
    baseCurrency: BASE_CURRENCY,
    timezone: 'Europe/Berlin',
  });
  const users = buildUsers(g, `${slug(name)}.example`);
  const clients = buildClients(g);
  const projects = buildProjects(g, clients, users);
  const payees = buildPayees(g, users);
  const model: WorkspaceModel = { id, users, clients, projects, payees };
  await writeUsersAndMembers(g, users);
  await writeTokens(g, users);
  await writeClients(g, clients);
  await writeProjectsAndTasks(g, projects, clients, users);
  await writePayees(g, users, payees);
  await writeFxRates(g, model);
  return model;
}

interface MonthState {
  invoices: MonthInvoices;
  invoiceRefs: EntryRefs;
  billRefs: EntryRefs;
  billing: BillWriter;
}

/**
 * The month's time entries, user by user (split by each user's share of hours), with each
 * payee's bill and payments written as soon as their month is done.
 */
async function writeMonthWork(
  g: Generation,
  model: WorkspaceModel,
  month: Month,
  entryCount: number,
  state: MonthState,
): Promise<void> {
  const perUser = splitByWeights(
    entryCount,
    model.users.map((u) => u.weight),
  );
  for (const user of model.users) {
    const plan = user.payee ? planBill(g, month) : 'NONE';
    state.billRefs.clear();
    const work = {
      month,
      user,
      count: perUser[user.index] ?? 0,
      invoices: state.invoices,
      billed: plan !== 'NONE',
    };
    await writeUserMonthEntries(g, model, work, state.invoiceRefs, state.billRefs);
    if (user.payee) await state.billing.writePayeeMonth(month, user.payee, plan, state.billRefs);
  }
}
