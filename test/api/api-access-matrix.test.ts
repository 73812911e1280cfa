import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan, Role, Scope } from '../../src/store/schema.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  KIND,
  ROLES,
  roleWorkspace,
  SCOPE_SETS,
  tokenFor,
  uid,
} from '../support/role-workspace.ts';

/**
 * Every endpoint x role x plan x scope, with the status each cell must answer. The table
 * below is the data: per endpoint, the status per role when the plan and scope allow the
 * call; the plan and scope rules of docs/contract.md, "Plans and roles" and "Order of checks",
 * apply on top, in their order (402 no API -> 403 role/scope -> 402 feature).
 */
interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: (w: number, role: Role) => string;
  body?: (w: number, role: Role) => object;
  idempotencyKey?: boolean;
  /** Scope the call needs; none for /me. */
  scope?: Scope;
  /** Agency-only feature. */
  agency?: boolean;
  status: Record<Role, number>;
}

const all = (status: number): Record<Role, number> => ({
  OWNER: status,
  ADMIN: status,
  MANAGER: status,
  MEMBER: status,
});
const managerUp = (status: number): Record<Role, number> => ({ ...all(status), MEMBER: 403 });
const ownerAdmin = (status: number): Record<Role, number> => ({
  ...all(status),
  MANAGER: 403,
  MEMBER: 403,
});

export const ENDPOINTS: Record<string, Endpoint> = {
  'GET /me': { method: 'GET', path: () => '/me', status: all(200) },
  'GET /clients': { method: 'GET', path: () => '/clients', scope: 'read', status: managerUp(200) },
  'POST /clients': {
    method: 'POST',
    path: () => '/clients',
    body: () => ({ name: 'Matrix client' }),
    scope: 'write',
    status: managerUp(201),
  },
  'PATCH /clients/{id}': {
    method: 'PATCH',
    path: (w) => `/clients/${uid(w, KIND.client)}`,
    body: () => ({ name: 'Renamed' }),
    scope: 'write',
    status: managerUp(200),
  },
  'GET /invoices': {
    method: 'GET',
    path: () => '/invoices',
    scope: 'read',
    status: managerUp(200),
  },
  'GET /invoices/{id}': {
    method: 'GET',
    path: (w) => `/invoices/${uid(w, KIND.invoice)}`,
    scope: 'read',
    status: managerUp(200),
  },
  'GET /projects': { method: 'GET', path: () => '/projects', scope: 'read', status: all(200) },
  'POST /expenses': {
    method: 'POST',
    path: () => '/expenses',
    body: (w) => ({
      clientId: uid(w, KIND.client),
      description: 'Taxi',
      amount: '5.00',
      expenseDate: '2026-10-03',
    }),
    idempotencyKey: true,
    scope: 'write',
    status: managerUp(201),
  },
  'PATCH /expenses/{id}': {
    method: 'PATCH',
    path: (w) => `/expenses/${uid(w, KIND.expense)}`,
    body: () => ({ description: 'Train, first class' }),
    scope: 'write',
    status: managerUp(200),
  },
  'POST /tasks': {
    method: 'POST',
    path: () => '/tasks',
    body: (w) => ({ projectId: uid(w, KIND.project), name: 'Matrix task' }),
    idempotencyKey: true,
    scope: 'write',
    status: all(201),
  },
  'PATCH /tasks/{id}': {
    method: 'PATCH',
    path: (w) => `/tasks/${uid(w, KIND.task)}`,
    body: () => ({ priority: 'HIGH' }),
    scope: 'write',
    status: all(200),
  },
  'DELETE /tasks/{id}': {
    method: 'DELETE',
    path: (w) => `/tasks/${uid(w, KIND.task, 1)}`,
    scope: 'write',
    status: managerUp(200),
  },
  'PATCH /time-entries/{id}': {
    method: 'PATCH',
    // Each caller edits their own entry.
    path: (w, role) => `/time-entries/${uid(w, KIND.entry, ROLES.indexOf(role))}`,
    body: () => ({ duration: '1h30m' }),
    scope: 'write',
    status: all(200),
  },
  'GET /team-payouts/bills': {
    method: 'GET',
    path: () => '/team-payouts/bills',
    scope: 'read',
    status: ownerAdmin(200),
  },
  'GET /team-payouts/payments': {
    method: 'GET',
    path: () => '/team-payouts/payments',
    scope: 'read',
    status: ownerAdmin(200),
  },
  'GET /team-payouts/payees': {
    method: 'GET',
    path: () => '/team-payouts/payees',
    scope: 'read',
    agency: true,
    status: ownerAdmin(200),
  },
  'GET /team-payouts/unpaid-time': {
    method: 'GET',
    path: () => '/team-payouts/unpaid-time',
    scope: 'read',
    agency: true,
    status: ownerAdmin(200),
  },
  'GET /team-payouts/profitability': {
    method: 'GET',
    path: () => '/team-payouts/profitability',
    scope: 'read',
    agency: true,
    status: ownerAdmin(200),
  },
  'GET /team-payouts/summary': {
    method: 'GET',
    path: () => '/team-payouts/summary',
    scope: 'read',
    agency: true,
    status: ownerAdmin(200),
  },
  // Exports: Owner/Admin, then the plan rules of the data they contain.
  'GET /exports/invoices': {
    method: 'GET',
    path: () => '/exports/invoices?format=csv',
    scope: 'read',
    status: ownerAdmin(200),
  },
  'GET /exports/bills': {
    method: 'GET',
    path: () => '/exports/bills?format=parquet',
    scope: 'read',
    status: ownerAdmin(200),
  },
  'GET /exports/unpaid-time': {
    method: 'GET',
    path: () => '/exports/unpaid-time?format=ndjson',
    scope: 'read',
    agency: true,
    status: ownerAdmin(200),
  },
  'GET /exports/profitability-members': {
    method: 'GET',
    path: () => '/exports/profitability-members?format=csv',
    scope: 'read',
    agency: true,
    status: ownerAdmin(200),
  },
  // Webhooks: Owner/Admin with the write scope, on any plan with API access.
  'GET /webhooks': {
    method: 'GET',
    path: () => '/webhooks',
    scope: 'write',
    status: ownerAdmin(200),
  },
  'POST /webhooks': {
    method: 'POST',
    path: () => '/webhooks',
    body: () => ({ url: 'https://93.184.216.34/matrix', events: ['client.created'] }),
    scope: 'write',
    status: ownerAdmin(201),
  },
};

const PLANS: Plan[] = ['free', 'solo', 'studio', 'agency'];

/** The status a cell must answer. */
function expected(endpoint: Endpoint, plan: Plan, role: Role, scopes: Scope[]): number {
  if (plan !== 'studio' && plan !== 'agency') return 402;
  const status = endpoint.status[role];
  if (status === 403) return 403;
  if (endpoint.scope && !scopes.includes(endpoint.scope)) return 403;
  if (endpoint.agency && plan !== 'agency') return 402;
  return status;
}

describe('access matrix: endpoint x role x plan x scope', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    for (const [i, plan] of PLANS.entries()) await h.importObject(roleWorkspace(i + 1, plan));
    await h.sync();
  });
  afterAll(() => h.close());

  let key = 0;
  for (const [name, endpoint] of Object.entries(ENDPOINTS)) {
    it(name, async () => {
      const cells: string[] = [];
      for (const [i, plan] of PLANS.entries()) {
        const w = i + 1;
        for (const role of ROLES) {
          for (const scopes of SCOPE_SETS) {
            const body = endpoint.body?.(w, role);
            const res = await h.app.inject({
              method: endpoint.method,
              url: `/api/v1${endpoint.path(w, role)}`,
              headers: {
                authorization: `Bearer ${tokenFor(w, role, scopes)}`,
                ...(body ? { 'content-type': 'application/json' } : {}),
                ...(endpoint.idempotencyKey ? { 'idempotency-key': `matrix-${++key}` } : {}),
              },
              ...(body ? { payload: JSON.stringify(body) } : {}),
            });
            const want = expected(endpoint, plan, role, scopes);
            if (res.statusCode !== want)
              cells.push(
                `${plan}/${role}/${scopes.join('+')}: ${res.statusCode} (want ${want}) ${res.body.slice(0, 120)}`,
              );
          }
        }
      }
      expect(cells).toEqual([]);
    });
  }
});
