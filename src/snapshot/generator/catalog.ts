import { hourlyRateIn, priceIn, type GeneratedCurrency } from './amounts.ts';
import { isoDate } from './calendar.ts';
import type { Generation } from './context.ts';
import type { ClientModel, ProjectModel, RateType, TaskModel, UserModel } from './model.ts';
import {
  CITIES,
  COMPANY_SUFFIXES,
  COMPANY_WORDS,
  FIRST_NAMES,
  LAST_NAMES,
  PROJECT_COLORS,
  PROJECT_NAMES,
  TASK_NAMES,
  TASK_TAGS,
} from './names.ts';
import { slug } from './people.ts';
import type { Random } from './random.ts';

// The first clients cover every currency case (null = base currency, JPY without minor
// unit, KWD with three decimals), so even a five-client workspace has them all.
const FIRST_CLIENT_CURRENCIES: (GeneratedCurrency | null)[] = [
  null,
  'USD',
  'GBP',
  'JPY',
  'KWD',
  'EUR',
];
const CLIENT_CURRENCIES: (GeneratedCurrency | null)[] = [null, 'EUR', 'USD', 'GBP', 'JPY', 'KWD'];
const CLIENT_CURRENCY_WEIGHTS = [25, 30, 20, 15, 5, 5];
const TAX_RATES: Record<GeneratedCurrency, string> = {
  EUR: '19',
  USD: '0',
  GBP: '20',
  JPY: '10',
  KWD: '0',
};
const COUNTRIES: Record<GeneratedCurrency, string> = {
  EUR: 'DE',
  USD: 'US',
  GBP: 'GB',
  JPY: 'JP',
  KWD: 'KW',
};
const CLIENT_RATE_EURO = [85, 95, 110, 120, 135, 150, 175];

export function buildClients(g: Generation): ClientModel[] {
  const rng = g.setupRandom;
  const clients: ClientModel[] = [];
  for (let index = 0; index < g.settings.clients; index++) {
    const currencyField =
      index < FIRST_CLIENT_CURRENCIES.length
        ? (FIRST_CLIENT_CURRENCIES[index] ?? null)
        : (CLIENT_CURRENCIES[rng.weighted(CLIENT_CURRENCY_WEIGHTS)] ?? null);
    const currency = currencyField ?? 'EUR';
    clients.push({
      index,
      id: rng.uuid(),
      name: clientName(index, rng.pick(COMPANY_SUFFIXES)),
      currencyField,
      currency,
      taxRate: rng.chance(0.85) ? TAX_RATES[currency] : null,
      requirePoNumber: rng.chance(0.15),
      paymentTermsDays: rng.pick([14, 30, 30, 45]),
      projects: [],
    });
  }
  return clients;
}

/** Company names cycle through the word list, then add a city: "Globex GmbH", "Globex Tokyo KK". */
function clientName(index: number, suffix: string): string {
  const word = COMPANY_WORDS[index % COMPANY_WORDS.length] ?? 'Client';
  const round = Math.floor(index / COMPANY_WORDS.length);
  const city = round === 0 ? '' : ` ${CITIES[(round - 1) % CITIES.length] ?? ''}`;
  return `${word}${city} ${suffix}`;
}

export async function writeClients(g: Generation, clients: ClientModel[]): Promise<void> {
  const rng = g.setupRandom;
  for (const client of clients) {
    const domain = `${slug(client.name)}.example`;
    await g.record('client', {
      id: client.id,
      name: client.name,
      contactName: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`,
      email: `contact@${domain}`,
      phone: `+${rng.between(1, 99)} ${rng.between(100, 999)} ${rng.between(100000, 999999)}`,
      website: `https://${domain}`,
      notes: rng.chance(0.2) ? 'Prefers invoices in English.' : null,
      taxNumber: rng.chance(0.7)
        ? `${COUNTRIES[client.currency]}${rng.between(100000000, 999999999)}`
        : null,
      billingEmail: `billing@${domain}`,
      currency: client.currencyField,
      billingLine1: `${rng.between(1, 200)} ${rng.pick(['Main Street', 'Hauptstraße', 'Rue de la Paix'])}`,
      billingCity: rng.pick(CITIES),
      billingPostalCode: String(rng.between(10000, 99999)),
      billingCountry: COUNTRIES[client.currency],
      defaultRate: hourlyRateIn(rng.pick(CLIENT_RATE_EURO), client.currency),
      defaultTaxRate: client.taxRate,
      defaultPaymentTerms: `Net ${client.paymentTermsDays}`,
      requirePoNumber: client.requirePoNumber,
    });
  }
}

/**
 * Projects: every tenth is internal (no client, NON_BILLABLE); the others go round the
 * clients (rate type: `clientRateType`). Each has 2-6 members and 2-5 tasks; every user
 * ends up on some project.
 */
export function buildProjects(
  g: Generation,
  clients: ClientModel[],
  users: UserModel[],
): ProjectModel[] {
  const rng = g.setupRandom;
  const projects: ProjectModel[] = [];
  let clientProjects = 0;
  for (let index = 0; index < g.settings.projects; index++) {
    const internal = index % 10 === 9 || clients.length === 0;
    const client = internal ? undefined : clients[clientProjects++ % clients.length];
    const rateType = internal
      ? 'NON_BILLABLE'
      : clientRateType(rng, clientProjects - 1, clients.length);
    const currency = client?.currency ?? 'EUR';
    const hourlyRate =
      rateType === 'HOURLY' ? hourlyRateIn(rng.pick(CLIENT_RATE_EURO), currency) : null;
    const name = internal
      ? `Internal: ${rng.pick(['Admin', 'Sales', 'Training'])}`
      : rng.pick(PROJECT_NAMES);
    const project: ProjectModel = {
      index,
      id: rng.uuid(),
      name,
      nameJson: JSON.stringify(name),
      clientIndex: client?.index ?? null,
      rateType,
      hourlyRate,
      rateKey: hourlyRate === null ? -1 : g.rates.intern(hourlyRate, currency),
      fixedFee: rateType === 'FIXED' ? priceIn(rng.between(8, 60) * 500, currency) : null,
      tasks: [],
      lineFields: [],
      members: pickDistinct(rng.between(2, 6), users.length, () => rng.int(users.length)),
    };
    project.tasks = buildTasks(g);
    project.lineFields = lineFields(project);
    client?.projects.push(index);
    projects.push(project);
  }
  assignProjectsToUsers(projects, users);
  return projects;
}

/**
 * The k-th client project: the first of each client is HOURLY (so every client has time to
 * invoice), the next two FIXED and NON_BILLABLE (so every workspace has both), then 80%
 * HOURLY, 10% FIXED, 10% NON_BILLABLE.
 */
function clientRateType(rng: Random, k: number, clientCount: number): RateType {
  if (k < clientCount) return 'HOURLY';
  if (k === clientCount) return 'FIXED';
  if (k === clientCount + 1) return 'NON_BILLABLE';
  return (['HOURLY', 'FIXED', 'NON_BILLABLE'] as const)[rng.weighted([80, 10, 10])] ?? 'HOURLY';
}

/** Precomputed JSON fragments of the lines of the project's entries (one per task, and none). */
function lineFields(project: ProjectModel): ProjectModel['lineFields'] {
  const noTask = {
    entry: `"projectId":"${project.id}","taskId":null`,
    description: project.nameJson,
  };
  return [
    noTask,
    ...project.tasks.map((t) => ({
      entry: `"projectId":"${project.id}","taskId":"${t.id}"`,
      description: t.nameJson,
    })),
  ];
}

/** Up to `count` distinct integers in [0, limit) drawn by `draw`, in draw order. */
function pickDistinct(count: number, limit: number, draw: () => number): number[] {
  const picked = new Set<number>();
  for (
    let attempts = 0;
    picked.size < Math.min(count, limit) && attempts < count * 10;
    attempts++
  ) {
    picked.add(draw());
  }
  return [...picked];
}

/** Fills each user's project list from project members, adding idle users to some project. */
function assignProjectsToUsers(projects: ProjectModel[], users: UserModel[]): void {
  for (const project of projects) {
    for (const member of project.members) users[member]?.projects.push(project.index);
  }
  for (const user of users) {
    if (user.projects.length > 0 || projects.length === 0) continue;
    const project = projects[user.index % projects.length];
    if (!project) continue;
    project.members.push(user.index);
    user.projects.push(project.index);
  }
}

function buildTasks(g: Generation): TaskModel[] {
  const rng = g.setupRandom;
  const names = pickDistinct(rng.between(2, 5), TASK_NAMES.length, () =>
    rng.int(TASK_NAMES.length),
  );
  return names.map((n) => {
    const name = TASK_NAMES[n] ?? 'Work';
    return {
      id: rng.uuid(),
      name,
      nameJson: JSON.stringify(name),
      billable: name !== 'Meetings' || rng.chance(0.5),
    };
  });
}

export async function writeProjectsAndTasks(
  g: Generation,
  projects: ProjectModel[],
  clients: ClientModel[],
  users: UserModel[],
): Promise<void> {
  const rng = g.setupRandom;
  const start = g.rangeStart;
  for (const project of projects) {
    await g.record('project', {
      id: project.id,
      clientId: project.clientIndex === null ? null : (clients[project.clientIndex]?.id ?? null),
      name: project.name,
      description: rng.chance(0.5)
        ? `${project.name} for the client's ${rng.pick(['EU', 'US', 'APAC'])} team`
        : null,
      color: rng.pick(PROJECT_COLORS),
      status: (['ACTIVE', 'COMPLETED', 'ARCHIVED'] as const)[rng.weighted([85, 10, 5])],
      rateType: project.rateType,
      hourlyRate: project.hourlyRate,
      fixedFeeAmount: project.fixedFee?.text ?? null,
      budgetHours: rng.chance(0.4) ? String(rng.between(2, 60) * 10) : null,
      startDate: isoDate(start - rng.between(0, 200)),
      dueDate: rng.chance(0.5) ? isoDate(g.today + rng.between(-100, 200)) : null,
      memberIds: project.members.map((m) => users[m]?.id),
    });
  }
  for (const project of projects) {
    const memberIds = project.members.map((m) => users[m]?.id);
    for (const task of project.tasks) {
      await g.record('task', {
        id: task.id,
        projectId: project.id,
        name: task.name,
        status: (['TODO', 'IN_PROGRESS', 'DONE'] as const)[rng.weighted([30, 40, 30])],
        priority: (['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const)[rng.weighted([40, 35, 20, 5])],
        billable: task.billable,
        estimatedHours: rng.chance(0.5) ? String(rng.between(1, 80)) : null,
        assigneeIds: memberIds.filter(() => rng.chance(0.5)),
        tags: TASK_TAGS.filter(() => rng.chance(0.15)),
        startDate: isoDate(start + rng.between(0, 60)),
        dueDate: rng.chance(0.4) ? isoDate(g.today + rng.between(-60, 90)) : null,
      });
    }
  }
}
