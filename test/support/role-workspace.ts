import type { Plan, Role, Scope } from '../../src/store/schema.ts';

export const ROLES: Role[] = ['OWNER', 'ADMIN', 'MANAGER', 'MEMBER'];
export const SCOPE_SETS: Scope[][] = [['read'], ['write'], ['read', 'write']];

/** A UUID whose last block encodes a workspace number, a kind and an index. */
export function uid(workspace: number, kind: number, index = 0): string {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  return `${hex(kind, 8)}-0000-4000-8000-${hex(workspace, 4)}${hex(index, 8)}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(seed: number, length: number): string {
  let out = '';
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += BASE62[x % 62];
  }
  return out;
}

/** The token of `role` with `scopes` in workspace `w` (deterministic). */
export function tokenFor(w: number, role: Role, scopes: Scope[]): string {
  const seed =
    w * 1000 + ROLES.indexOf(role) * 10 + SCOPE_SETS.findIndex((s) => s.join() === scopes.join());
  return `tt_test_${base62(seed + 1, 12)}_${base62(seed + 7, 32)}`;
}

export const KIND = {
  workspace: 0x10,
  user: 0x20,
  client: 0x30,
  project: 0x40,
  task: 0x50,
  entry: 0x60,
  expense: 0x70,
  invoice: 0x80,
};

/**
 * Workspace number `w` on `plan`: one user per role, a token per role and scope set, a
 * client, a project every user is a member of, a task assigned to the Member, a time entry
 * of each user, an expense and an invoice.
 */
export function roleWorkspace(w: number, plan: Plan) {
  const user = (role: Role) => uid(w, KIND.user, ROLES.indexOf(role));
  return {
    version: 1,
    workspace: {
      id: uid(w, KIND.workspace),
      name: `WS ${w}`,
      plan,
      baseCurrency: 'EUR',
      timezone: 'UTC',
    },
    users: ROLES.map((role) => ({ id: user(role), name: `${role} ${w}`, email: null })),
    members: ROLES.map((role) => ({ userId: user(role), role })),
    tokens: ROLES.flatMap((role) =>
      SCOPE_SETS.map((scopes) => ({
        token: tokenFor(w, role, scopes),
        userId: user(role),
        scopes,
      })),
    ),
    clients: [{ id: uid(w, KIND.client), name: `Client ${w}`, currency: 'USD' }],
    projects: [
      {
        id: uid(w, KIND.project),
        clientId: uid(w, KIND.client),
        name: `Project ${w}`,
        status: 'ACTIVE',
        rateType: 'HOURLY',
        hourlyRate: '100',
        memberIds: ROLES.map(user),
      },
    ],
    tasks: [
      {
        id: uid(w, KIND.task),
        projectId: uid(w, KIND.project),
        name: 'Task',
        assigneeIds: [user('MEMBER')],
      },
      { id: uid(w, KIND.task, 1), projectId: uid(w, KIND.project), name: 'To archive' },
    ],
    timeEntries: ROLES.map((role, i) => ({
      id: uid(w, KIND.entry, i),
      userId: user(role),
      projectId: uid(w, KIND.project),
      taskId: null,
      entryDate: '2026-10-01',
      durationSeconds: 3600,
      billable: true,
      isRunning: false,
      note: null,
      invoiceId: null,
    })),
    expenses: [
      {
        id: uid(w, KIND.expense),
        clientId: uid(w, KIND.client),
        projectId: null,
        category: 'TRAVEL',
        description: 'Train',
        amount: '10.00',
        currency: 'USD',
        billable: true,
        expenseDate: '2026-10-02',
        invoiceId: null,
      },
    ],
    invoices: [
      {
        id: uid(w, KIND.invoice),
        clientId: uid(w, KIND.client),
        number: `INV-${w}`,
        status: 'DRAFT',
        paymentStatus: 'unpaid',
        currency: 'USD',
        issueDate: null,
        dueDate: null,
        subtotal: '0',
        discountAmount: '0',
        total: '0',
        amountPaid: '0',
        lines: [],
      },
    ],
    payees: [],
    bills: [],
    payments: [],
    fxRates: [],
  };
}
