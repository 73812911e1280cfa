import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeEntryRecord } from '../../src/api/time-entries/time-entry.record.ts';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, tinySnapshot, TOKENS } from '../support/small-snapshot.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Body = Record<string, any>;

// The small snapshot's Admin token is read-only; these tokens and records are this file's.
const ADMIN_WRITE = 'tt_test_AdminWrite01_abcdefghijklmnopqrstuvwxyz012345';
const FREE_TOKEN = 'tt_test_FreePlanTok1_abcdefghijklmnopqrstuvwxyz012345';
const OTHER_OWNER = 'tt_test_OtherOwner01_abcdefghijklmnopqrstuvwxyz012345';
const more = {
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
const other = {
  workspace: '7a000000-0000-4000-8000-000000000001',
  user: '7a000000-0000-4000-8000-000000000002',
  client: '7a000000-0000-4000-8000-000000000003',
  project: '7a000000-0000-4000-8000-000000000004',
  task: '7a000000-0000-4000-8000-000000000005',
  entry: '7a000000-0000-4000-8000-000000000006',
};
const NOWHERE = '7b000000-0000-4000-8000-00000000dead';

function snapshot() {
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

function otherWorkspace() {
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

describe('PATCH /time-entries/{id}', () => {
  let h: Harness;
  beforeAll(async () => {
    // Writes answer at their commit: the file's requests with one token outrun the 100 a
    // window the rate limit lets through (the limit has its own tests).
    h = await createHarness({ live: true, rateLimit: { requests: 100_000 } });
    await h.importObject(snapshot());
    await h.importObject(otherWorkspace());
    await h.importObject(tinySnapshot(1, 'free', FREE_TOKEN));
    await h.sync();
  });
  afterAll(() => h.close());

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

  describe('duration', () => {
    it('reads every duration form', async () => {
      const id = await newEntry();
      for (const [duration, seconds] of [
        ['1h30m', 5400],
        ['1h', 3600],
        ['90m', 5400],
        ['45s', 45],
        ['1h30m15s', 5415],
        ['1:30', 5400],
        ['1:30:15', 5415],
        ['1.5h', 5400],
        ['0.25h', 900],
      ] as const) {
        const res = await patch(id, { duration });
        expect(res.status, duration).toBe(200);
        expect(res.body.data.durationSeconds, duration).toBe(seconds);
        expect((await storeRow(id))?.duration_seconds).toBe(String(seconds));
      }
    });

    it('refuses any other duration text with 422 naming duration, and writes nothing', async () => {
      const id = await newEntry();
      await refusedWithoutWriting(
        id,
        [
          '1h30',
          '90',
          '1:60',
          '1.5',
          'h',
          '-1h',
          '1h 30m',
          ' 1h',
          '1H',
          '',
          '1h90m',
          '0.0001h',
          '1.5m',
        ].map((duration) => [{ duration }, 422, 'validation_failed', ['duration']]),
      );
      await refusedWithoutWriting(id, [
        ['{"duration": 5400}', 422, 'validation_failed', ['duration']],
        [{ duration: null }, 422, 'validation_failed', ['duration']],
      ]);
    });

    it('takes 1 second to 24 hours, from either field, and nothing outside', async () => {
      const id = await newEntry();
      for (const [body, seconds] of [
        [{ durationSeconds: 1 }, 1],
        [{ durationSeconds: 86_400 }, 86_400],
        [{ duration: '1s' }, 1],
        [{ duration: '24h' }, 86_400],
        [{ duration: '24:00:00' }, 86_400],
      ] as const) {
        const res = await patch(id, body);
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(res.body.data.durationSeconds).toBe(seconds);
      }
      await refusedWithoutWriting(id, [
        [{ durationSeconds: 0 }, 422, 'validation_failed', ['durationSeconds']],
        [{ durationSeconds: 86_401 }, 422, 'validation_failed', ['durationSeconds']],
        [{ durationSeconds: -60 }, 422, 'validation_failed', ['durationSeconds']],
        ['{"durationSeconds": 1.5}', 422, 'validation_failed', ['durationSeconds']],
        ['{"durationSeconds": 60.0}', 422, 'validation_failed', ['durationSeconds']],
        ['{"durationSeconds": 1e3}', 422, 'validation_failed', ['durationSeconds']],
        [{ durationSeconds: '60' }, 422, 'validation_failed', ['durationSeconds']],
        [{ durationSeconds: null }, 422, 'validation_failed', ['durationSeconds']],
        [{ duration: '0s' }, 422, 'validation_failed', ['duration']],
        [{ duration: '24h0m1s' }, 422, 'validation_failed', ['duration']],
        [{ duration: '24:00:01' }, 422, 'validation_failed', ['duration']],
        [{ duration: '25h' }, 422, 'validation_failed', ['duration']],
      ]);
    });

    it('lets durationSeconds win over duration, which must still be well-formed', async () => {
      const id = await newEntry();
      const res = await patch(id, { durationSeconds: 120, duration: '1h' });
      expect(res.status).toBe(200);
      expect(res.body.data.durationSeconds).toBe(120);
      // The duration that loses is not checked against the bounds, only its form.
      expect((await patch(id, { durationSeconds: 240, duration: '25h' })).body.data).toMatchObject({
        durationSeconds: 240,
      });
      await refusedWithoutWriting(id, [
        [{ durationSeconds: 300, duration: '1h30' }, 422, 'validation_failed', ['duration']],
      ]);
    });

    it('derives the duration from startTime and endTime and sets startedAt and stoppedAt', async () => {
      const id = await newEntry();
      const res = await patch(id, {
        startTime: '2026-10-05T09:00:00+02:00',
        endTime: '2026-10-05T08:30:15.000Z',
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        durationSeconds: 5415,
        startedAt: '2026-10-05T07:00:00.000Z',
        stoppedAt: '2026-10-05T08:30:15.000Z',
        // The date is its own field: times alone do not move it.
        entryDate: '2026-10-05',
      });
    });

    it('accepts a duration equal to endTime - startTime and refuses one that differs', async () => {
      const id = await newEntry();
      const pair = { startTime: '2026-10-05T09:00:00Z', endTime: '2026-10-05T10:30:00Z' };
      for (const same of [
        { durationSeconds: 5400 },
        { duration: '1h30m' },
        { duration: '1:30', durationSeconds: 5400 },
      ]) {
        const res = await patch(id, { ...pair, ...same });
        expect(res.status, JSON.stringify(same)).toBe(200);
        expect(res.body.data.durationSeconds).toBe(5400);
      }
      await refusedWithoutWriting(id, [
        [{ ...pair, durationSeconds: 5401 }, 422, 'duration_conflict', ['durationSeconds']],
        [{ ...pair, duration: '1h' }, 422, 'duration_conflict', ['duration']],
        [
          { ...pair, duration: '1h', durationSeconds: 60 },
          422,
          'duration_conflict',
          ['durationSeconds', 'duration'],
        ],
        // The pair decides even where durationSeconds would win over duration.
        [
          { ...pair, duration: '1h', durationSeconds: 5400 },
          422,
          'duration_conflict',
          ['duration'],
        ],
      ]);
    });

    it('needs startTime and endTime together, end after start, whole seconds, at most 24 h', async () => {
      const id = await newEntry();
      const start = '2026-10-05T09:00:00Z';
      await refusedWithoutWriting(id, [
        [{ startTime: start }, 422, 'validation_failed', ['endTime']],
        [{ endTime: start }, 422, 'validation_failed', ['startTime']],
        [{ startTime: start, endTime: start }, 422, 'validation_failed', ['endTime']],
        [
          { startTime: start, endTime: '2026-10-05T08:59:59Z' },
          422,
          'validation_failed',
          ['endTime'],
        ],
        [
          { startTime: start, endTime: '2026-10-05T09:00:00.500Z' },
          422,
          'validation_failed',
          ['endTime'],
        ],
        [
          { startTime: start, endTime: '2026-10-05T09:00:01.0001Z' },
          422,
          'validation_failed',
          ['endTime'],
        ],
        [
          { startTime: start, endTime: '2026-10-06T09:00:01Z' },
          422,
          'validation_failed',
          ['endTime'],
        ],
        [
          { startTime: '2026-10-05 09:00', endTime: start },
          422,
          'validation_failed',
          ['startTime'],
        ],
        [
          { startTime: '2026-10-05T09:00:00', endTime: start },
          422,
          'validation_failed',
          ['startTime'],
        ],
        [{ startTime: null, endTime: null }, 422, 'validation_failed', ['startTime', 'endTime']],
      ]);
      const day = await patch(id, { startTime: start, endTime: '2026-10-06T09:00:00.000000Z' });
      expect(day.status).toBe(200);
      expect(day.body.data.durationSeconds).toBe(86_400);
    });

    it('keeps startedAt and moves stoppedAt when a duration is set on an entry with times', async () => {
      const id = await newEntry(ids.member, {
        started_at: new Date('2026-10-05T09:00:00Z'),
        stopped_at: new Date('2026-10-05T10:00:00Z'),
      });
      const res = await patch(id, { duration: '2h' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        durationSeconds: 7200,
        startedAt: '2026-10-05T09:00:00.000Z',
        stoppedAt: '2026-10-05T11:00:00.000Z',
      });
    });

    it("refuses to set a running entry's duration, but edits its other fields", async () => {
      await refusedWithoutWriting(more.running, [
        [{ durationSeconds: 60 }, 422, 'validation_failed', ['durationSeconds']],
        [{ duration: '1h' }, 422, 'validation_failed', ['duration']],
        [
          { startTime: '2026-10-03T08:00:00Z', endTime: '2026-10-03T09:00:00Z' },
          422,
          'validation_failed',
          ['startTime', 'endTime'],
        ],
      ]);
      const res = await patch(more.running, { note: 'still going', entryDate: '2026-10-04' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        isRunning: true,
        durationSeconds: 0,
        stoppedAt: null,
        note: 'still going',
        entryDate: '2026-10-04',
      });
    });
  });

  describe('who may edit', () => {
    it('lets every role with the write scope edit its own entries', async () => {
      for (const [userId, token] of [
        [ids.owner, TOKENS.owner],
        [ids.admin, ADMIN_WRITE],
        [ids.manager, TOKENS.manager],
        [ids.member, TOKENS.member],
      ] as const) {
        const id = await newEntry(userId);
        const res = await patch(id, { note: `mine, ${userId}`, duration: '15m' }, token);
        expect(res.status, userId).toBe(200);
        expect(res.body.data).toMatchObject({ userId, durationSeconds: 900 });
      }
    });

    it('needs the write scope: a read-only token gets 403 even on its own entry', async () => {
      const id = await newEntry(ids.admin);
      await refusedWithoutWriting(id, [[{ note: 'x' }, 403, 'forbidden_scope']], TOKENS.admin);
    });

    it("lets only Owner and Admin edit a teammate's entry", async () => {
      const managers = await newEntry(ids.manager);
      await refusedWithoutWriting(managers, [[{ note: 'x' }, 403, 'forbidden_scope']]);
      const members = await newEntry(ids.member);
      await refusedWithoutWriting(
        members,
        [[{ note: 'x' }, 403, 'forbidden_scope']],
        TOKENS.manager,
      );
      for (const token of [TOKENS.owner, ADMIN_WRITE]) {
        const res = await patch(members, { note: `by ${token.slice(8, 20)}` }, token);
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ userId: ids.member });
      }
    });

    it('moves an entry to another member with userId, for Owner and Admin only', async () => {
      const id = await newEntry(ids.member);
      const moved = await patch(id, { userId: ids.manager }, TOKENS.owner);
      expect(moved.status).toBe(200);
      expect(moved.body.data.userId).toBe(ids.manager);
      expect((await storeRow(id))?.user_id).toBe(ids.manager);
      const back = await patch(id, { userId: ids.member.toUpperCase() }, ADMIN_WRITE);
      expect(back.status).toBe(200);
      expect(back.body.data.userId).toBe(ids.member);
      // A Manager or Member may not send userId at all, not even their own or a bad one.
      const managers = await newEntry(ids.manager);
      await refusedWithoutWriting(
        managers,
        [
          [{ userId: ids.manager }, 403, 'forbidden_scope'],
          [{ userId: ids.member }, 403, 'forbidden_scope'],
        ],
        TOKENS.manager,
      );
      await refusedWithoutWriting(id, [
        [{ userId: ids.member }, 403, 'forbidden_scope'],
        [{ userId: 'nope', duration: 'bad' }, 403, 'forbidden_scope'],
      ]);
    });

    it('refuses a userId that is not an active member of this workspace', async () => {
      const id = await newEntry(ids.member);
      await refusedWithoutWriting(
        id,
        [
          [{ userId: more.outsider }, 422, 'validation_failed', ['userId']],
          [{ userId: more.former }, 422, 'validation_failed', ['userId']],
          [{ userId: NOWHERE }, 422, 'validation_failed', ['userId']],
          [{ userId: other.user }, 422, 'validation_failed', ['userId']],
          [{ userId: 'nope' }, 422, 'validation_failed', ['userId']],
          [{ userId: null }, 422, 'validation_failed', ['userId']],
        ],
        TOKENS.owner,
      );
      const missing = await patch(id, { userId: NOWHERE }, TOKENS.owner);
      expect(missing.body.error.fields).toEqual({ userId: 'does not exist' });
      const former = await patch(id, { userId: more.former }, TOKENS.owner);
      expect(former.body.error.fields).toEqual({ userId: 'is not a member of this workspace' });
    });

    it('keeps a Member to the projects they were granted', async () => {
      const id = await newEntry(ids.member);
      await refusedWithoutWriting(id, [[{ projectId: more.ungranted }, 403, 'forbidden_scope']]);
      const res = await patch(id, { projectId: more.granted });
      expect(res.status).toBe(200);
      expect(res.body.data.projectId).toBe(more.granted);
      // Managers and up are not limited to granted projects.
      const managers = await newEntry(ids.manager);
      const moved = await patch(managers, { projectId: more.ungranted }, TOKENS.manager);
      expect(moved.status).toBe(200);
      expect(moved.body.data.projectId).toBe(more.ungranted);
    });
  });

  describe('project and task', () => {
    it("checks the task against the entry's project, the new one when it moves", async () => {
      const id = await newEntry(ids.member, { task_id: ids.task });
      await refusedWithoutWriting(id, [
        [{ taskId: more.grantedTask }, 422, 'validation_failed', ['taskId']],
        [{ projectId: more.granted }, 422, 'validation_failed', ['taskId']],
        [{ projectId: more.granted, taskId: ids.task }, 422, 'validation_failed', ['taskId']],
        [{ taskId: NOWHERE }, 422, 'validation_failed', ['taskId']],
        [{ projectId: NOWHERE }, 422, 'validation_failed', ['projectId']],
        [{ projectId: 'nope' }, 422, 'validation_failed', ['projectId']],
        [{ projectId: null }, 422, 'validation_failed', ['projectId']],
      ]);
      const wrong = await patch(id, { taskId: more.grantedTask });
      expect(wrong.body.error.fields).toEqual({ taskId: 'belongs to another project' });

      const moved = await patch(id, { projectId: more.granted, taskId: more.grantedTask });
      expect(moved.status).toBe(200);
      expect(moved.body.data).toMatchObject({
        projectId: more.granted,
        taskId: more.grantedTask,
      });
      const cleared = await patch(id, { projectId: ids.project, taskId: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data).toMatchObject({ projectId: ids.project, taskId: null });
    });
  });

  describe('locked entries', () => {
    it('locks the duration, date, project and user of an entry on a SENT invoice and an APPROVED bill', async () => {
      // entry1 is on INV-0001 (SENT) and on B-0001 (APPROVED).
      await refusedWithoutWriting(
        ids.entry1,
        [
          [{ durationSeconds: 3600 }, 409, 'entry_locked', ['durationSeconds']],
          [{ duration: '2h' }, 409, 'entry_locked', ['duration']],
          [
            { startTime: '2026-10-01T09:00:00Z', endTime: '2026-10-01T10:30:00Z' },
            409,
            'entry_locked',
            ['startTime', 'endTime'],
          ],
          [{ entryDate: '2026-10-02' }, 409, 'entry_locked', ['entryDate']],
          [{ projectId: more.granted, taskId: null }, 409, 'entry_locked', ['projectId']],
          [{ userId: ids.manager }, 409, 'entry_locked', ['userId']],
          [{ note: 'ok', entryDate: '2026-10-02' }, 409, 'entry_locked', ['entryDate']],
        ],
        TOKENS.owner,
      );
    });

    it('still changes the note and billable flag of a locked entry, and takes unchanged values', async () => {
      const res = await patch(ids.entry1, {
        note: 'Wireframes, reviewed',
        billable: false,
        durationSeconds: 5400,
        duration: '1.5h',
        entryDate: '2026-10-01',
        projectId: ids.project,
        taskId: ids.task,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        note: 'Wireframes, reviewed',
        billable: false,
        durationSeconds: 5400,
        invoiceId: ids.invoice,
      });
      const owner = await patch(ids.entry1, { userId: ids.member, billable: true }, TOKENS.owner);
      expect(owner.status).toBe(200);
    });

    it('locks for an APPROVED bill alone and for a PAID invoice, by line or by invoiceId alone', async () => {
      for (const id of [more.onApprovedBill, more.onPaidInvoice]) {
        await refusedWithoutWriting(id, [
          [{ durationSeconds: 60 }, 409, 'entry_locked', ['durationSeconds']],
        ]);
      }
      for (const invoiceId of [more.paidInvoice, ids.invoice]) {
        const byInvoiceId = await newEntry(ids.member);
        await h.pool.query('UPDATE time_entries SET invoice_id = $1 WHERE id = $2', [
          invoiceId,
          byInvoiceId,
        ]);
        await refusedWithoutWriting(byInvoiceId, [
          [{ entryDate: '2026-10-09' }, 409, 'entry_locked', ['entryDate']],
        ]);
      }
    });

    it('does not lock for a DRAFT invoice, a VOID bill or a deleted SENT invoice', async () => {
      const deletedInvoice = randomUUID();
      const onDeletedInvoice = await newEntry(ids.member);
      await h.pool.query(
        `INSERT INTO invoices (id, workspace_id, client_id, number, status, payment_status,
           currency, subtotal, total, deleted_at)
         VALUES ($1, $2, $3, 'INV-0009', 'SENT', 'unpaid', 'USD', 0, 0, now())`,
        [deletedInvoice, ids.workspace, ids.client],
      );
      await h.pool.query('UPDATE time_entries SET invoice_id = $1 WHERE id = $2', [
        deletedInvoice,
        onDeletedInvoice,
      ]);
      for (const id of [more.onDraftInvoice, more.onVoidBill, onDeletedInvoice]) {
        const res = await patch(id, { duration: '2h', entryDate: '2026-10-06' });
        expect(res.status, id).toBe(200);
        expect(res.body.data).toMatchObject({ durationSeconds: 7200, entryDate: '2026-10-06' });
      }
    });
  });

  describe('ids, errors and order of checks', () => {
    it('answers an entry of another workspace exactly as one that does not exist', async () => {
      const foreign = await patch(other.entry, { note: 'x' }, TOKENS.owner);
      const missing = await patch(NOWHERE, { note: 'x' }, TOKENS.owner);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('not_found');
      const { requestId: _a, ...foreignError } = foreign.body.error as Body;
      const { requestId: _b, ...missingError } = missing.body.error as Body;
      expect(foreignError).toEqual(missingError);
      // And the other workspace's Owner cannot reach this workspace's entries either.
      expect((await patch(ids.entry2, { note: 'x' }, OTHER_OWNER)).status).toBe(404);
      expect((await storeRow(other.entry))?.note).toBeNull();
    });

    it('answers ids of another workspace in the body exactly as ids that do not exist', async () => {
      const id = await newEntry(ids.member);
      for (const [field, foreignId] of [
        ['projectId', other.project],
        ['taskId', other.task],
        ['userId', other.user],
      ] as const) {
        const foreign = await patch(id, { [field]: foreignId }, TOKENS.owner);
        const missing = await patch(id, { [field]: NOWHERE }, TOKENS.owner);
        expect(foreign.status, field).toBe(422);
        expect(foreign.body.error.fields).toEqual({ [field]: 'does not exist' });
        expect(foreign.body.error.fields).toEqual(missing.body.error.fields);
      }
    });

    it('answers 404 for an unknown, malformed or deleted entry id', async () => {
      for (const id of [NOWHERE, 'nope', more.deleted]) {
        const res = await patch(id, { note: 'x' }, TOKENS.owner);
        expect(res.status, id).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
      expect((await storeRow(more.deleted))?.note).toBeNull();
    });

    it('checks in the order 401, 402, 403, 404, 422', async () => {
      const bad = { duration: 'soon' };
      const noToken = await h.app.inject({
        method: 'PATCH',
        url: `/api/v1/time-entries/${ids.entry2}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(bad),
      });
      expect(noToken.statusCode).toBe(401);
      expect((await patch(NOWHERE, bad, FREE_TOKEN)).status).toBe(402);
      expect((await patch(NOWHERE, bad, TOKENS.admin)).status).toBe(403);
      expect((await patch(NOWHERE, bad, TOKENS.member)).status).toBe(404);
      expect((await patch(NOWHERE, '[1]', TOKENS.member)).status).toBe(404);
      const managers = await newEntry(ids.manager);
      expect((await patch(managers, bad, TOKENS.member)).status).toBe(403);
      const mine = await patch(ids.entry2, bad, TOKENS.member);
      expect(mine.status).toBe(422);
      expect(mine.body.error.fields).toEqual({ duration: expect.any(String) as string });
    });

    it('answers 400 for malformed JSON and 422 for a body that is not an object', async () => {
      const id = await newEntry();
      await refusedWithoutWriting(id, [
        ['{"note": ', 400, 'malformed_json'],
        ['[1]', 422, 'validation_failed', ['body']],
        ['"note"', 422, 'validation_failed', ['body']],
      ]);
    });

    it('ignores unknown fields, stores an empty note as null, and answers the whole record', async () => {
      const id = await newEntry();
      const res = await patch(id, {
        note: '   ',
        billable: false,
        isRunning: true,
        invoiceId: ids.invoice,
        colour: 'red',
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        id,
        orgId: ids.workspace,
        userId: ids.member,
        projectId: ids.project,
        taskId: null,
        invoiceId: null,
        durationSeconds: 3600,
        billable: false,
        isRunning: false,
        note: null,
        entryDate: '2026-10-05',
        startedAt: null,
        stoppedAt: null,
        createdAt: expect.any(String) as string,
        updatedAt: expect.any(String) as string,
        deletedAt: null,
      });
      const empty = await patch(id, {});
      expect(empty.status).toBe(200);
      expect(empty.body.data.updatedAt > res.body.data.updatedAt).toBe(true);
      await refusedWithoutWriting(id, [
        [{ billable: 'no' }, 422, 'validation_failed', ['billable']],
        [{ entryDate: '2026-02-30' }, 422, 'validation_failed', ['entryDate']],
        [{ note: 7 }, 422, 'validation_failed', ['note']],
      ]);
    });
  });

  describe('read model', () => {
    it('shows the write once the read model passes the PATCH’s data position: the read model equals PostgreSQL', async () => {
      const id = await newEntry(ids.member, { task_id: ids.task });
      const res = await patch(
        id,
        {
          projectId: more.granted,
          taskId: more.grantedTask,
          startTime: '2026-10-07T13:00:00Z',
          endTime: '2026-10-07T14:45:30Z',
          entryDate: '2026-10-07',
          note: 'Read your writes',
        },
        TOKENS.owner,
      );
      expect(res.status).toBe(200);
      // No h.sync(): the write's own position is what a read of its token waits for.
      await h.passed(res);
      const duck = await h.readModel.connect();
      try {
        const reader = await duck.runAndReadAll(
          `SELECT CAST(project_id AS VARCHAR) AS project_id, CAST(task_id AS VARCHAR) AS task_id,
             CAST(entry_date AS VARCHAR) AS entry_date, duration_seconds, note,
             started_at, stopped_at, updated_at
           FROM time_entries WHERE id = CAST($id AS UUID)`,
          { id },
        );
        const [row] = reader.getRowObjectsJS();
        expect(row).toMatchObject({
          project_id: more.granted,
          task_id: more.grantedTask,
          entry_date: '2026-10-07',
          duration_seconds: 6330,
          note: 'Read your writes',
        });
        const { store, readModel } = await snapshotBoth(h.pool, duck);
        expect(readModel.time_entries).toEqual(store.time_entries);
      } finally {
        duck.closeSync();
      }
    });
  });
});
