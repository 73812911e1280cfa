import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { KIND, roleWorkspace, tokenFor, uid } from '../support/role-workspace.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are compared by value
type Body = Record<string, any>;

const MINE = 1;
const THEIRS = 2;
/** An id of the same kind that exists in no workspace. */
const missing = (kind: number, index = 0) => uid(99, kind, index);

interface Probe {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The request with an id of the other workspace, and with an id that exists nowhere. */
  path: (id: (kind: number, index?: number) => string) => string;
  body?: (id: (kind: number, index?: number) => string) => object;
  key?: boolean;
}

/** Every endpoint that takes an id, in the path, the query or the body. */
const PROBES: Record<string, Probe> = {
  'GET /invoices/{id}': { method: 'GET', path: (id) => `/invoices/${id(KIND.invoice)}` },
  'GET /invoices?clientId': {
    method: 'GET',
    path: (id) => `/invoices?clientId=${id(KIND.client)}`,
  },
  'GET /projects?clientId': {
    method: 'GET',
    path: (id) => `/projects?clientId=${id(KIND.client)}`,
  },
  'GET /projects?memberId': { method: 'GET', path: (id) => `/projects?memberId=${id(KIND.user)}` },
  'PATCH /clients/{id}': {
    method: 'PATCH',
    path: (id) => `/clients/${id(KIND.client)}`,
    body: () => ({ name: 'Hijacked' }),
  },
  'PATCH /expenses/{id}': {
    method: 'PATCH',
    path: (id) => `/expenses/${id(KIND.expense)}`,
    body: () => ({ description: 'Hijacked' }),
  },
  'POST /expenses (clientId)': {
    method: 'POST',
    path: () => '/expenses',
    body: (id) => ({
      clientId: id(KIND.client),
      description: 'X',
      amount: '1',
      expenseDate: '2026-10-01',
    }),
    key: true,
  },
  'PATCH /tasks/{id}': {
    method: 'PATCH',
    path: (id) => `/tasks/${id(KIND.task)}`,
    body: () => ({ name: 'Hijacked' }),
  },
  'DELETE /tasks/{id}': { method: 'DELETE', path: (id) => `/tasks/${id(KIND.task)}` },
  'PATCH /time-entries/{id}': {
    method: 'PATCH',
    path: (id) => `/time-entries/${id(KIND.entry)}`,
    body: () => ({ durationSeconds: 60 }),
  },
  'PATCH /time-entries/{id} (projectId)': {
    method: 'PATCH',
    path: () => `/time-entries/${uid(MINE, KIND.entry)}`,
    body: (id) => ({ projectId: id(KIND.project) }),
  },
  'POST /tasks (projectId)': {
    method: 'POST',
    path: () => '/tasks',
    body: (id) => ({ projectId: id(KIND.project), name: 'X' }),
    key: true,
  },
  'POST /tasks (assigneeIds)': {
    method: 'POST',
    path: () => '/tasks',
    body: (id) => ({ projectId: uid(MINE, KIND.project), name: 'X', assigneeIds: [id(KIND.user)] }),
    key: true,
  },
};

describe('ids of another workspace answer exactly as missing ids, and write nothing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(roleWorkspace(MINE, 'agency'));
    await h.importObject(roleWorkspace(THEIRS, 'agency'));
    await h.sync();
  });
  afterAll(() => h.close());

  /** Every row of the other workspace, as text, to show nothing of it changed. */
  const theirRows = async () => {
    const ws = uid(THEIRS, KIND.workspace);
    const parts: string[] = [];
    for (const table of ['clients', 'projects', 'tasks', 'expenses', 'time_entries', 'invoices']) {
      const { rows } = await h.pool.query(
        `SELECT t::text AS row FROM ${table} t WHERE workspace_id = $1 ORDER BY id`,
        [ws],
      );
      parts.push(...rows.map((r: { row: string }) => r.row));
    }
    return parts;
  };

  let n = 0;
  const call = async (probe: Probe, id: (kind: number, index?: number) => string) => {
    const body = probe.body?.(id);
    const res = await h.app.inject({
      method: probe.method,
      url: `/api/v1${probe.path(id)}`,
      headers: {
        authorization: `Bearer ${tokenFor(MINE, 'OWNER', ['read', 'write'])}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(probe.key ? { 'idempotency-key': `cross-${++n}` } : {}),
      },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    const json = res.json<Body>();
    if (json.error) delete json.error.requestId;
    return { status: res.statusCode, body: json };
  };

  for (const [name, probe] of Object.entries(PROBES)) {
    it(name, async () => {
      const before = await theirRows();
      const foreign = await call(probe, (kind, index) => uid(THEIRS, kind, index));
      const absent = await call(probe, missing);
      expect(foreign).toEqual(absent);
      expect(foreign.status).not.toBe(500);
      expect(await theirRows()).toEqual(before);
    });
  }
});
