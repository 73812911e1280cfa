import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { timeEntryRecord } from '../../src/api/time-entries/time-entry.record.ts';
import { createHarness, type Harness } from './harness.ts';
import { ids, smallSnapshot, TOKENS } from './small-snapshot.ts';
import { tinySnapshot } from './small-snapshot.ts';

// The workspaces and helpers of the PATCH /time-entries/{id} tests (test/api/time-entry-*.test.ts
// and api-time-entries.test.ts): each file opens its own server over them.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
export type Body = Record<string, any>;

// The small snapshot's Admin token is read-only; these tokens and records are this file's.
export const ADMIN_WRITE = 'tt_test_AdminWrite01_abcdefghijklmnopqrstuvwxyz012345';
export const FREE_TOKEN = 'tt_test_FreePlanTok1_abcdefghijklmnopqrstuvwxyz012345';
export const OTHER_OWNER = 'tt_test_OtherOwner01_abcdefghijklmnopqrstuvwxyz012345';
export const more = {
  outsider: 'f1000000-0000-4000-8000-000000000001',
  former: 'f1000000-0000-4000-8000-000000000002',
  ungranted: 'f2000000-0000-4000-8000-000000000002',
  granted: 'f2000000-0000-4000-8000-000000000003',
  ungrantedTask: 'f3000000-0000-4000-8000-000000000002',
  grantedTask: 'f3000000-0000-4000-8000-000000000003',
  onApprovedBill: 'f4000000-0000-4000-8000-000000000001',
  onDraftInvoice: 'f4000000-0000-4000-8000-000000000002',
  onPaidInvoice: 'f4000000-0000-4000-8000-000000000003',
  onVoidBill: 'f4000000-0000-4000-8000-000000000004',
  deleted: 'f4000000-0000-4000-8000-000000000005',
  running: 'f4000000-0000-4000-8000-000000000006',
  draftInvoice: 'f5000000-0000-4000-8000-000000000002',
  paidInvoice: 'f5000000-0000-4000-8000-000000000003',
  approvedBill: 'f6000000-0000-4000-8000-000000000002',
  voidBill: 'f6000000-0000-4000-8000-000000000003',
};
// A second workspace in the same database: its ids must answer as ids that do not exist.
export const other = {
  workspace: '7a000000-0000-4000-8000-000000000001',
  user: '7a000000-0000-4000-8000-000000000002',
  client: '7a000000-0000-4000-8000-000000000003',
  project: '7a000000-0000-4000-8000-000000000004',
  task: '7a000000-0000-4000-8000-000000000005',
  entry: '7a000000-0000-4000-8000-000000000006',
};
export const NOWHERE = '7b000000-0000-4000-8000-00000000dead';

export function snapshot() {
  const s = smallSnapshot();
  const entry = (id: string, extra: object = {}) => ({
    id,
    userId: ids.member,
    projectId: ids.project,
    entryDate: '2026-10-03',
    durationSeconds: 3600,
    ...extra,
  });
  const invoiceLine = (id: string, timeEntryId: string) => ({
    id,
    kind: 'TIME',
    timeEntryId,
    projectId: ids.project,
    quantity: '1',
    unitPrice: '120.00',
    amount: '120.00',
  });
  const invoice = s.invoices[0]!;
  const bill = s.bills[0]!;
  const billLine = (id: string, timeEntryId: string) => ({
    ...bill.lines[0]!,
    id,
    timeEntryId,
    durationSeconds: 3600,
  });
  return {
    ...s,
    users: [
      ...s.users,
      { id: more.outsider, name: 'Otto Outsider' },
      { id: more.former, name: 'Fred Former', deletedAt: '2026-09-01T00:00:00Z' },
    ],
    members: [...s.members, { userId: more.former, role: 'MEMBER' }],
    tokens: [...s.tokens, { token: ADMIN_WRITE, userId: ids.admin, scopes: ['read', 'write'] }],
    projects: [
      ...s.projects,
      { id: more.ungranted, name: 'Internal', memberIds: [ids.owner] },
      { id: more.granted, name: 'Mobile', memberIds: [ids.member] },
    ],
    tasks: [
      ...s.tasks,
      { id: more.ungrantedTask, projectId: more.ungranted, name: 'Admin' },
      { id: more.grantedTask, projectId: more.granted, name: 'Build' },
    ],
    timeEntries: [
      ...s.timeEntries,
      entry(more.onApprovedBill),
      entry(more.onDraftInvoice, { invoiceId: more.draftInvoice }),
      entry(more.onPaidInvoice, { invoiceId: more.paidInvoice }),
      entry(more.onVoidBill),
      entry(more.deleted, { deletedAt: '2026-10-04T00:00:00Z' }),
      entry(more.running, {
        isRunning: true,
        durationSeconds: 0,
        startedAt: '2026-10-03T08:00:00Z',
      }),
    ],
    invoices: [
      ...s.invoices,
      {
        ...invoice,
        id: more.draftInvoice,
        number: 'INV-0002',
        status: 'DRAFT',
        paymentStatus: 'unpaid',
        amountPaid: '0',
        lines: [invoiceLine('f5000000-0000-4000-8000-0000000000a2', more.onDraftInvoice)],
      },
      {
        ...invoice,
        id: more.paidInvoice,
        number: 'INV-0003',
        status: 'PAID',
        paymentStatus: 'paid',
        amountPaid: '192.78',
        lines: [invoiceLine('f5000000-0000-4000-8000-0000000000a3', more.onPaidInvoice)],
      },
    ],
    bills: [
      ...s.bills,
      {
        ...bill,
        id: more.approvedBill,
        number: 'B-0002',
        lines: [billLine('f6000000-0000-4000-8000-0000000000a2', more.onApprovedBill)],
      },
      {
        ...bill,
        id: more.voidBill,
        number: 'B-0003',
        status: 'VOID',
        approvedAt: null,
        lines: [billLine('f6000000-0000-4000-8000-0000000000a3', more.onVoidBill)],
      },
    ],
  };
}

export function otherWorkspace() {
  return {
    version: 1,
    workspace: {
      id: other.workspace,
      name: 'Other Studio',
      plan: 'agency',
      baseCurrency: 'EUR',
      timezone: 'UTC',
    },
    users: [{ id: other.user, name: 'Oona Other' }],
    members: [{ userId: other.user, role: 'OWNER' }],
    tokens: [{ token: OTHER_OWNER, userId: other.user }],
    clients: [{ id: other.client, name: 'Elsewhere' }],
    projects: [{ id: other.project, clientId: other.client, name: 'Theirs' }],
    tasks: [{ id: other.task, projectId: other.project, name: 'Their task' }],
    timeEntries: [
      {
        id: other.entry,
        userId: other.user,
        projectId: other.project,
        entryDate: '2026-10-01',
        durationSeconds: 600,
      },
    ],
  };
}

/** A live server over the three workspaces, with the helpers the tests share. */
export async function openTimeEntryHarness() {
  // Writes answer at their commit: the file's requests with one token outrun the 100 a
  // window the rate limit lets through (the limit has its own tests).
  const h: Harness = await createHarness({ live: true, rateLimit: { requests: 100_000 } });
  await h.importObject(snapshot());
  await h.importObject(otherWorkspace());
  await h.importObject(tinySnapshot(1, 'free', FREE_TOKEN));
  await h.sync();

  const patch = async (id: string, body: string | object, token = TOKENS.member) => {
    const res = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/time-entries/${id}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = res.json<Body>();
    // Every success answers a whole record of the documented shape.
    if (res.statusCode === 200) timeEntryRecord.parse(json.data);
    return { status: res.statusCode, body: json, headers: res.headers };
  };

  /** The entry's row in PostgreSQL, every column as text. */
  const storeRow = async (id: string) => {
    const { rows } = await h.pool.query<Record<string, string | null>>(
      `SELECT user_id::text, project_id::text, task_id::text, invoice_id::text,
        entry_date::text, duration_seconds::text, billable::text, is_running::text,
        started_at::text, stopped_at::text, note, updated_at::text, deleted_at::text
       FROM time_entries WHERE id = $1`,
      [id],
    );
    return rows[0];
  };

  /** A new entry of `userId`, written straight to the store. */
  const newEntry = async (
    userId: string = ids.member,
    extra: { started_at?: Date; stopped_at?: Date; task_id?: string } = {},
  ) => {
    const id = randomUUID();
    await h.db
      .insertInto('time_entries')
      .values({
        id,
        workspace_id: ids.workspace,
        user_id: userId,
        project_id: ids.project,
        task_id: null,
        invoice_id: null,
        entry_date: '2026-10-05',
        duration_seconds: 3600,
        note: 'fresh',
        ...extra,
      })
      .execute();
    return id;
  };

  /** Runs the requests, each expected to fail, and checks none of them wrote anything. */
  const refusedWithoutWriting = async (
    id: string,
    cases: [body: string | object, status: number, code: string, fields?: string[]][],
    token = TOKENS.member,
  ) => {
    const before = await storeRow(id);
    for (const [body, status, code, fields] of cases) {
      const res = await patch(id, body, token);
      const label = JSON.stringify(body);
      expect(res.status, label).toBe(status);
      expect(res.body.error.code, label).toBe(code);
      if (fields) expect(Object.keys(res.body.error.fields as object), label).toEqual(fields);
    }
    expect(await storeRow(id)).toEqual(before);
  };

  return { h, patch, storeRow, newEntry, refusedWithoutWriting };
}

export type TimeEntryHarness = Awaited<ReturnType<typeof openTimeEntryHarness>>;

/**
 * Opens the server for the suite it is called in (its beforeAll and afterAll); the helpers
 * work once it is open.
 */
export function useTimeEntryHarness() {
  let opened: TimeEntryHarness | undefined;
  beforeAll(async () => {
    opened = await openTimeEntryHarness();
  });
  afterAll(() => opened?.h.close());
  const t = () => {
    if (opened === undefined) throw new Error('the time-entry harness is not open yet');
    return opened;
  };
  return {
    get h() {
      return t().h;
    },
    patch: (...args: Parameters<TimeEntryHarness['patch']>) => t().patch(...args),
    storeRow: (...args: Parameters<TimeEntryHarness['storeRow']>) => t().storeRow(...args),
    newEntry: (...args: Parameters<TimeEntryHarness['newEntry']>) => t().newEntry(...args),
    refusedWithoutWriting: (...args: Parameters<TimeEntryHarness['refusedWithoutWriting']>) =>
      t().refusedWithoutWriting(...args),
  };
}
