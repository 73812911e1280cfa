/**
 * A workspace snapshot (docs/contract.md, "Workspace snapshot") built record by record, for tests
 * of the team-payout figures that go through the real path: snapshot -> PostgreSQL -> sync ->
 * DuckDB -> HTTP. Every Workspace made is listed in `workspaces`, for the test file to import
 * them all before its tests (each test file has its own database, so ids may repeat across
 * files).
 */

// Ids grow with creation order, so a test can tell which of two equal names sorts first.
let lastId = 0;
const newId = () => `00000000-0000-4000-8000-${(++lastId).toString(16).padStart(12, '0')}`;

export const workspaces: Workspace[] = [];

interface EntryOptions {
  user: string;
  project: string;
  date: string;
  seconds: number;
  billable?: boolean;
  isRunning?: boolean;
  deleted?: boolean;
}
interface LineOptions {
  entry?: string;
  project?: string;
  kind?: string;
  amount: string;
}

export class Workspace {
  readonly id = newId();
  readonly token: string;
  private readonly owner = newId();
  readonly snapshot = {
    version: 1,
    workspace: {} as Record<string, unknown>,
    users: [] as object[],
    members: [] as object[],
    tokens: [] as object[],
    clients: [] as object[],
    projects: [] as object[],
    timeEntries: [] as object[],
    invoices: [] as object[],
    payees: [] as object[],
    bills: [] as object[],
    payments: [] as object[],
    fxRates: [] as object[],
  };

  constructor(options: { baseCurrency?: string; timezone?: string } = {}) {
    workspaces.push(this);
    this.token = `tt_test_Prof${String(workspaces.length).padStart(8, '0')}_abcdefghijklmnopqrstuvwxyz012345`;
    this.snapshot.workspace = {
      id: this.id,
      name: `Profitability ${workspaces.length}`,
      plan: 'agency',
      baseCurrency: options.baseCurrency ?? 'EUR',
      timezone: options.timezone ?? 'UTC',
    };
    this.snapshot.users.push({ id: this.owner, name: 'Owner' });
    this.snapshot.members.push({ userId: this.owner, role: 'OWNER' });
    this.snapshot.tokens.push({ token: this.token, userId: this.owner, scopes: ['read'] });
  }

  user(name: string): string {
    const id = newId();
    this.snapshot.users.push({ id, name });
    this.snapshot.members.push({ userId: id, role: 'MEMBER' });
    return id;
  }

  client(name: string, currency = 'EUR'): string {
    const id = newId();
    this.snapshot.clients.push({ id, name, currency });
    return id;
  }

  project(name: string, clientId: string | null = null, options: { deleted?: boolean } = {}) {
    const id = newId();
    this.snapshot.projects.push({
      id,
      clientId,
      name,
      ...(options.deleted ? { deletedAt: '2026-09-01T00:00:00Z' } : {}),
    });
    return id;
  }

  entry(options: EntryOptions): string {
    const id = newId();
    this.snapshot.timeEntries.push({
      id,
      userId: options.user,
      projectId: options.project,
      entryDate: options.date,
      durationSeconds: options.seconds,
      billable: options.billable ?? true,
      isRunning: options.isRunning ?? false,
      ...(options.deleted ? { deletedAt: '2026-10-20T00:00:00Z' } : {}),
    });
    return id;
  }

  /** rates: [effectiveFrom, hourlyRate, currency] */
  payee(
    user: string,
    options: {
      name: string;
      startDate?: string;
      rates: [string, string, string][];
      deleted?: boolean;
    },
  ): string {
    const id = newId();
    this.snapshot.payees.push({
      id,
      userId: user,
      name: options.name,
      startDate: options.startDate ?? null,
      rates: options.rates.map(([effectiveFrom, hourlyRate, currency]) => ({
        id: newId(),
        effectiveFrom,
        hourlyRate,
        currency,
      })),
      ...(options.deleted ? { deletedAt: '2026-10-20T00:00:00Z' } : {}),
    });
    return id;
  }

  bill(payee: string, currency: string, status: string, lines: LineOptions[]): string {
    const id = newId();
    this.snapshot.bills.push({
      id,
      payeeId: payee,
      number: `B-${id.slice(-4)}`,
      status,
      currency,
      lines: lines.map((l) => ({
        id: newId(),
        kind: l.kind ?? 'TIME',
        timeEntryId: l.entry ?? null,
        amount: l.amount,
      })),
    });
    return id;
  }

  /** allocations: [billId, amount] */
  payment(
    payee: string,
    currency: string,
    amount: string,
    allocations: [string, string][],
    status = 'RECORDED',
  ): void {
    this.snapshot.payments.push({
      id: newId(),
      payeeId: payee,
      currency,
      amount,
      paidDate: '2026-11-05',
      method: 'BANK_TRANSFER',
      status,
      ...(status === 'REVERSED' ? { reversedAt: '2026-11-06T00:00:00Z' } : {}),
      allocations: allocations.map(([billId, a]) => ({ billId, amount: a })),
    });
  }

  invoice(
    client: string,
    options: {
      currency: string;
      status?: string;
      issueDate: string | null;
      subtotal: string;
      discount?: string;
      total: string;
      paid?: string;
      lines: LineOptions[];
      deleted?: boolean;
    },
  ): string {
    const id = newId();
    this.snapshot.invoices.push({
      id,
      clientId: client,
      number: `INV-${id.slice(-4)}`,
      status: options.status ?? 'SENT',
      paymentStatus: 'unpaid',
      currency: options.currency,
      issueDate: options.issueDate,
      subtotal: options.subtotal,
      discountAmount: options.discount ?? '0',
      total: options.total,
      amountPaid: options.paid ?? '0',
      lines: options.lines.map((l) => ({
        id: newId(),
        kind: l.kind ?? 'TIME',
        timeEntryId: l.entry ?? null,
        projectId: l.project ?? null,
        amount: l.amount,
      })),
      ...(options.deleted ? { deletedAt: '2026-10-30T00:00:00Z' } : {}),
    });
    return id;
  }

  fx(from: string, to: string, effectiveFrom: string, rate: string, deleted = false): string {
    const id = newId();
    this.snapshot.fxRates.push({
      id,
      fromCurrency: from,
      toCurrency: to,
      effectiveFrom,
      rate,
      ...(deleted ? { deletedAt: '2026-10-01T00:00:00Z' } : {}),
    });
    return id;
  }
}
