import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportIssue, SnapshotImportError } from '../../src/snapshot/import.ts';
import { apiRequest, type Body } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { importObject } from '../support/import-object.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// Values the stores cannot hold (issue 26): text with U+0000, dates and timestamps outside
// years 0001-9999, days that do not exist. Each is refused at the edge with 422 naming the
// field, on every path that takes one, and the ends of the range are taken.
// The error answers over real HTTP are http-error-envelope.test.ts's.

const NUL = '\u0000';
let keyCounter = 0;
const freshKey = () => `edge-${process.pid}-${++keyCounter}`;

describe('values the stores cannot hold', () => {
  let h: Harness;
  beforeAll(async () => {
    // Hundreds of requests in a few seconds with one token: more than a window of the default
    // policy (100 per 5 s) lets through; the rate limit has its own tests (rate-limit.test.ts).
    h = await createHarness({ live: true, rateLimit: { requests: 100_000 } });
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  const send = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: object) =>
    apiRequest(h.app, {
      method,
      path,
      body,
      token: TOKENS.owner,
      headers: method === 'POST' ? { 'idempotency-key': freshKey() } : {},
    });
  const counts = async () =>
    (
      await h.pool.query<{ n: string }>(
        `SELECT concat_ws(',', (SELECT count(*) FROM clients), (SELECT count(*) FROM tasks),
           (SELECT count(*) FROM expenses), (SELECT max(updated_at) FROM clients),
           (SELECT max(updated_at) FROM tasks), (SELECT max(updated_at) FROM expenses),
           (SELECT max(updated_at) FROM time_entries)) AS n`,
      )
    ).rows[0]!.n;
  const readModelRow = async (table: string, id: string) => {
    const duck = await h.readModel.connect();
    try {
      const reader = await duck.runAndReadAll(
        `SELECT * EXCLUDE (id) FROM ${table} WHERE id = $id::UUID`,
        { id },
      );
      return reader.getRowObjectsJson()[0];
    } finally {
      duck.closeSync();
    }
  };
  const expectRefused = async (
    cases: [method: 'POST' | 'PATCH', path: string, body: object, field: string][],
  ) => {
    const before = await counts();
    for (const [method, path, body, field] of cases) {
      const res = await send(method, path, body);
      const what = `${method} ${path} ${JSON.stringify(body)}`;
      expect(res.status, what).toBe(422);
      expect(res.body.error.code, what).toBe('validation_failed');
      expect(Object.keys(res.body.error.fields as object), what).toContain(field);
    }
    expect(await counts()).toBe(before);
  };

  const task = { projectId: ids.project, name: 'Edge task' };
  const expense = {
    clientId: ids.client,
    description: 'Edge expense',
    amount: '10.00',
    expenseDate: '2026-10-05',
  };

  it('refuses U+0000 in any text of every write, naming the field, and writes nothing', async () => {
    await expectRefused([
      ['POST', '/clients', { name: `A${NUL}B` }, 'name'],
      ['POST', '/clients', { name: 'A', notes: `line${NUL}` }, 'notes'],
      ['POST', '/clients', { name: 'A', email: `a${NUL}@example.com` }, 'email'],
      ['POST', '/clients', { name: 'A', comment: NUL }, 'comment'],
      ['PATCH', `/clients/${ids.client}`, { name: 'Globex', billingCity: NUL }, 'billingCity'],
      ['POST', '/tasks', { ...task, name: `T${NUL}` }, 'name'],
      ['POST', '/tasks', { ...task, tags: ['ok', `b${NUL}`] }, 'tags.1'],
      ['PATCH', `/tasks/${ids.task}`, { description: `d${NUL}` }, 'description'],
      ['PATCH', `/tasks/${ids.task}`, { tags: [NUL] }, 'tags.0'],
      ['POST', '/expenses', { ...expense, description: `D${NUL}` }, 'description'],
      [
        'PATCH',
        `/expenses/${ids.expense}`,
        { category: 'OTHER', customCategory: `c${NUL}` },
        'customCategory',
      ],
      ['PATCH', `/time-entries/${ids.entry2}`, { note: `n${NUL}` }, 'note'],
    ]);
  });

  it('refuses dates outside years 0001-9999 and days that do not exist, in every body', async () => {
    const entry = `/time-entries/${ids.entry2}`;
    await expectRefused([
      ['POST', '/tasks', { ...task, startDate: '0000-01-01' }, 'startDate'],
      ['POST', '/tasks', { ...task, dueDate: '0000-12-31' }, 'dueDate'],
      ['POST', '/tasks', { ...task, endDate: '2026-02-30' }, 'endDate'],
      ['PATCH', `/tasks/${ids.task}`, { dueDate: '10000-01-01' }, 'dueDate'],
      ['PATCH', `/tasks/${ids.task}`, { startDate: '2026-04-31' }, 'startDate'],
      ['POST', '/expenses', { ...expense, expenseDate: '0000-01-01' }, 'expenseDate'],
      ['PATCH', `/expenses/${ids.expense}`, { expenseDate: '2026-02-29' }, 'expenseDate'],
      ['PATCH', entry, { entryDate: '0000-01-01' }, 'entryDate'],
      [
        'PATCH',
        entry,
        { startTime: '0000-01-01T09:00:00Z', endTime: '0000-01-01T10:00:00Z' },
        'startTime',
      ],
      // Year 1 at the offset given, year 0 in UTC.
      [
        'PATCH',
        entry,
        { startTime: '0001-01-01T00:30:00+01:00', endTime: '0001-01-01T01:30:00+01:00' },
        'startTime',
      ],
      [
        'PATCH',
        entry,
        { startTime: '9999-12-31T20:00:00Z', endTime: '9999-12-31T22:00:00-05:00' },
        'endTime',
      ],
      [
        'PATCH',
        entry,
        { startTime: '2026-02-30T09:00:00Z', endTime: '2026-02-30T10:00:00Z' },
        'startTime',
      ],
    ]);
  });

  it('takes the first and last day and instant of the range, and the read model holds them', async () => {
    const patched = await send('PATCH', `/tasks/${ids.task}`, {
      startDate: '0001-01-01',
      dueDate: '9999-12-31',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ startDate: '0001-01-01', dueDate: '9999-12-31' });
    await h.passed(patched);
    expect(await readModelRow('tasks', ids.task)).toMatchObject({
      start_date: '0001-01-01',
      due_date: '9999-12-31',
    });

    // An entry's times at both ends (its date stays: summaries work per day of a date range).
    const first = await send('PATCH', `/time-entries/${ids.entry2}`, {
      startTime: '0001-01-01T00:00:00Z',
      endTime: '0001-01-01T01:00:00Z',
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ startedAt: '0001-01-01T00:00:00.000Z' });
    const last = await send('PATCH', `/time-entries/${ids.entry2}`, {
      startTime: '9999-12-31T22:59:59Z',
      endTime: '9999-12-31T23:59:59Z',
    });
    expect(last.status).toBe(200);
    expect(last.body.data).toMatchObject({ stoppedAt: '9999-12-31T23:59:59.000Z' });
    // The sync kept following: the last write is in the read model.
    await h.passed(last);
    expect(await readModelRow('time_entries', ids.entry2)).toMatchObject({
      stopped_at: expect.stringMatching(/^9999-12-31 23:59:59/),
    });
  });

  it('refuses days that do not exist and years outside 0001-9999 in every date filter', async () => {
    for (const path of [
      '/clients?createdAtFrom=2026-02-30',
      '/clients?updatedAtTo=0000-01-01',
      '/invoices?issueDateFrom=2026-02-30',
      '/invoices?dueDateTo=0000-12-31T00:00:00Z',
      '/invoices?sentAtFrom=0001-01-01T00:30:00%2B01:00',
      '/invoices?paidAtTo=2026-02-30T10:00:00Z',
      '/projects?startDateFrom=2026-04-31',
      '/projects?dueDateTo=10000-01-01',
      '/team-payouts/bills?from=0000-01-01',
      '/team-payouts/bills?to=2026-02-30',
      '/team-payouts/profitability?from=0000-01-01',
      '/exports/bills?format=csv&from=0000-01-01',
      '/exports/bills?format=csv&to=2026-02-30',
    ]) {
      const res = await send('GET', path);
      expect(res.status, path).toBe(422);
      expect(res.body.error.code, path).toBe('validation_failed');
      const name = /[?&](\w+)=[^&]*$/.exec(path)![1]!;
      expect(Object.keys(res.body.error.fields as object), path).toEqual([name]);
    }
    const all = await send('GET', '/invoices?issueDateFrom=0001-01-01&issueDateTo=9999-12-31');
    expect(all.status).toBe(200);
    expect((all.body.data as Body[]).map((i) => i.id as string)).toContain(ids.invoice);
  });

  it('the importer refuses the same values, naming entity, id and field', async () => {
    const s = smallSnapshot();
    // A record's text is looked at once its fields have their form: NUL and dates apart.
    Object.assign(s.clients[0]!, { notes: `n${NUL}` });
    Object.assign(s.projects[0]!, { createdAt: '2026-02-30T10:00:00Z', startDate: '0000-01-01' });
    Object.assign(s.tasks[0]!, { tags: ['ok', NUL] });
    Object.assign(s.timeEntries[1]!, { startedAt: '0000-01-01T09:00:00Z' });
    Object.assign(s.expenses[0]!, { expenseDate: '2026-02-29' });
    Object.assign(s.invoices[0]!, { issueDate: '10000-01-01' });
    Object.assign(s.bills[0]!.lines[0]!, { sourceSnapshot: { [`k${NUL}`]: 'v', ok: [`v${NUL}`] } });
    Object.assign(s.workspace, { name: `W${NUL}` });
    const error = await importObject(h.pool, { ...s, workspace: { ...s.workspace } }).then(
      () => undefined,
      (e: unknown) => e as SnapshotImportError,
    );
    expect(error?.issues).toBeDefined();
    const found = error!.issues.map(({ entity, id, field }: ImportIssue) => ({
      entity,
      id,
      field,
    }));
    expect(found).toEqual(
      expect.arrayContaining([
        { entity: 'workspace', id: ids.workspace, field: 'name' },
        { entity: 'client', id: ids.client, field: 'notes' },
        { entity: 'project', id: ids.project, field: 'createdAt' },
        { entity: 'project', id: ids.project, field: 'startDate' },
        { entity: 'task', id: ids.task, field: 'tags.1' },
        { entity: 'timeEntry', id: ids.entry2, field: 'startedAt' },
        { entity: 'expense', id: ids.expense, field: 'expenseDate' },
        { entity: 'invoice', id: ids.invoice, field: 'issueDate' },
        { entity: 'bill', id: ids.bill, field: `lines.0.sourceSnapshot.k${NUL}` },
        { entity: 'bill', id: ids.bill, field: 'lines.0.sourceSnapshot.ok.0' },
      ]),
    );
  });

  it('refuses __proto__ and other names of Object.prototype on the strict endpoints', async () => {
    for (const path of [
      '/team-payouts/bills',
      `/team-payouts/bills/${ids.bill}`,
      '/team-payouts/payments',
      '/team-payouts/payees',
      '/team-payouts/unpaid-time',
      '/team-payouts/summary',
      '/team-payouts/profitability',
      '/exports/bills?format=csv',
    ]) {
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        const url = `${path}${path.includes('?') ? '&' : '?'}${name}=1`;
        const res = await send('GET', url);
        expect(res.status, url).toBe(422);
        expect(res.body.error.code, url).toBe('invalid_query');
        expect(Object.keys(res.body.error.fields as object), url).toEqual([name]);
      }
    }
  });

  it('takes back only the exact cursor it issued: any other text is invalid_cursor', async () => {
    for (const name of ['Cursor A', 'Cursor B'])
      expect((await send('POST', '/clients', { name })).status).toBe(201);
    const page = await send('GET', '/clients?limit=1&sort=name');
    const cursor = page.body.pagination.nextCursor as string;
    expect(cursor).toMatch(/^[\w-]+\.[\w-]+$/);
    expect((await send('GET', `/clients?limit=1&sort=name&cursor=${cursor}`)).status).toBe(200);

    // The signature's last character carries 4 unused bits: another character with the same
    // 2 used bits decodes to the same bytes.
    const last = cursor.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = [...alphabet].find(
      (c) =>
        c !== last &&
        Buffer.from(`${cursor.slice(0, -1)}${c}`.split('.')[1]!, 'base64url').equals(
          Buffer.from(cursor.split('.')[1]!, 'base64url'),
        ),
    )!;
    const [body, signature] = cursor.split('.') as [string, string];
    for (const [what, text] of [
      ['é appended', `${cursor}é`],
      ['== appended', `${cursor}==`],
      ['= padding on the body', `${body}=.${signature}`],
      ['a blank appended', `${cursor} `],
      ['the same bytes spelt otherwise', `${cursor.slice(0, -1)}${twin}`],
      ['5,000 characters of junk', 'x'.repeat(5000)],
      ['5,000 characters after a valid cursor', `${cursor}${'A'.repeat(5000)}`],
    ]) {
      for (const path of ['/clients?limit=1&sort=name', '/team-payouts/payments?limit=1']) {
        const url = `${path}&cursor=${encodeURIComponent(text!)}`;
        const res = await send('GET', url);
        expect(res.status, `${path} ${what}`).toBe(422);
        expect(res.body.error.code, `${path} ${what}`).toBe('invalid_cursor');
      }
    }
  });

  it('answers a PATCH of an unknown record 404 whatever the body, as time entries do', async () => {
    const unknown = 'dead0000-0000-4000-8000-00000000dead';
    for (const resource of ['clients', 'expenses', 'tasks', 'time-entries']) {
      for (const body of [
        { name: '', amount: 'x', startDate: '0000-01-01', note: `n${NUL}`, duration: 'soon' },
        [1, 2],
        'text',
      ]) {
        for (const id of [unknown, 'not-a-uuid']) {
          const path = `/${resource}/${id}`;
          const res = await apiRequest(h.app, {
            method: 'PATCH',
            path,
            body: typeof body === 'string' ? JSON.stringify(body) : body,
            token: TOKENS.owner,
          });
          expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(404);
          expect(res.body.error.code).toBe('not_found');
        }
      }
    }
    // A record that exists still gets its 422.
    for (const [path, body] of [
      [`/clients/${ids.client}`, { name: '' }],
      [`/expenses/${ids.expense}`, { amount: 'x' }],
      [`/tasks/${ids.task}`, { startDate: '0000-01-01' }],
    ] as const) {
      const res = await send('PATCH', path, body);
      expect(res.status, path).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it("answers 403 before 422 to a Member's PATCH of a task they are not assigned to", async () => {
    const res = await apiRequest(h.app, {
      method: 'PATCH',
      path: `/tasks/${ids.task}`,
      body: { startDate: '0000-01-01' },
      token: TOKENS.manager,
    });
    // The Manager may edit any task: the body is what is wrong.
    expect(res.status).toBe(422);
    const created = await apiRequest(h.app, {
      method: 'POST',
      path: '/tasks',
      body: { projectId: ids.project, name: 'Not the member’s', assigneeIds: [ids.owner] },
      token: TOKENS.owner,
      headers: { 'idempotency-key': freshKey() },
    });
    expect(created.status).toBe(201);
    const forbidden = await apiRequest(h.app, {
      method: 'PATCH',
      path: `/tasks/${created.body.data.id as string}`,
      body: { startDate: '0000-01-01' },
      token: TOKENS.member,
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden_scope');
  });
});
