import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

const otherProject = '42000000-0000-4000-8000-000000000001';
const yenClient = '32000000-0000-4000-8000-000000000001';
const noCurrencyClient = '32000000-0000-4000-8000-000000000002';

function snapshot() {
  const s = smallSnapshot();
  // A project the Member was not granted, and clients in JPY and without a currency.
  s.projects.push({
    id: otherProject,
    clientId: ids.client,
    name: 'Secret',
    status: 'ACTIVE',
    rateType: 'HOURLY',
    memberIds: [ids.manager],
  } as never);
  s.clients.push(
    { id: yenClient, name: 'Yen KK', currency: 'JPY' } as never,
    { id: noCurrencyClient, name: 'Nowhere', currency: null } as never,
  );
  return s;
}

let keyCounter = 0;
const freshKey = () => `key-${process.pid}-${++keyCounter}`;

describe('tasks and expenses writes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ live: true });
    await h.importObject(snapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  const send = (
    method: 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body: object | undefined,
    token: string,
    key: string | null = freshKey(),
  ) =>
    apiRequest(h.app, {
      method,
      path,
      body,
      token,
      headers: key === null ? {} : { 'idempotency-key': key },
    });
  const readModelRow = async (table: string, id: string) => {
    const duck = await h.readModel.connect();
    try {
      const reader = await duck.runAndReadAll(`SELECT * FROM ${table} WHERE id = $id::UUID`, {
        id,
      });
      return reader.getRowObjectsJS()[0];
    } finally {
      duck.closeSync();
    }
  };

  describe('POST /tasks', () => {
    it('needs an Idempotency-Key', async () => {
      const res = await send(
        'POST',
        '/tasks',
        { projectId: ids.project, name: 'T' },
        TOKENS.owner,
        null,
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('idempotency_key_required');
    });

    it('creates a task with defaults, visible in the read model when the 201 arrives', async () => {
      const res = await send(
        'POST',
        '/tasks',
        { projectId: ids.project, name: 'Build', tags: ['a', 'a', 'b'], estimatedHours: '2.50' },
        TOKENS.manager,
      );
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        name: 'Build',
        status: 'TODO',
        priority: 'LOW',
        billable: true,
        tags: ['a', 'b'],
        assigneeIds: [],
        estimatedHours: '2.5',
      });
      await h.passed(res);
      expect(await readModelRow('tasks', res.body.data.id as string)).toMatchObject({
        name: 'Build',
      });
    });

    it('lets a Member create only self-assigned tasks on granted projects', async () => {
      const own = await send(
        'POST',
        '/tasks',
        { projectId: ids.project, name: 'Mine' },
        TOKENS.member,
      );
      expect(own.status).toBe(201);
      expect(own.body.data.assigneeIds).toEqual([ids.member]);
      const forOthers = await send(
        'POST',
        '/tasks',
        { projectId: ids.project, name: 'Theirs', assigneeIds: [ids.owner] },
        TOKENS.member,
      );
      expect(forOthers.status).toBe(403);
      const notGranted = await send(
        'POST',
        '/tasks',
        { projectId: otherProject, name: 'X' },
        TOKENS.member,
      );
      expect(notGranted.status).toBe(403);
    });

    it('refuses unknown projects and assignees outside the workspace with 422', async () => {
      const res = await send(
        'POST',
        '/tasks',
        { projectId: '42000000-0000-4000-8000-00000000beef', name: 'X' },
        TOKENS.owner,
      );
      expect(res.status).toBe(422);
      expect(res.body.error.fields).toEqual({ projectId: 'does not exist' });
      const stranger = await send(
        'POST',
        '/tasks',
        {
          projectId: ids.project,
          name: 'X',
          assigneeIds: ['20000000-0000-4000-8000-0000000000ff'],
        },
        TOKENS.owner,
      );
      expect(stranger.body.error.fields).toHaveProperty('assigneeIds');
      const bad = await send(
        'POST',
        '/tasks',
        { projectId: ids.project, name: 'X', status: 'DOING' },
        TOKENS.owner,
      );
      expect(bad.body.error.fields).toHaveProperty('status');
    });
  });

  describe('PATCH and DELETE /tasks/{id}', () => {
    it('lets a Member edit only tasks assigned to them', async () => {
      const assigned = await send(
        'PATCH',
        `/tasks/${ids.task}`,
        { status: 'DONE' },
        TOKENS.member,
        null,
      );
      expect(assigned.status).toBe(200);
      expect(assigned.body.data.status).toBe('DONE');
      const created = await send(
        'POST',
        '/tasks',
        { projectId: ids.project, name: 'Unassigned' },
        TOKENS.owner,
      );
      const other = await send(
        'PATCH',
        `/tasks/${created.body.data.id}`,
        { name: 'Y' },
        TOKENS.member,
        null,
      );
      expect(other.status).toBe(403);
    });

    it('archives for Managers and up, answering the same record when repeated', async () => {
      const created = await send(
        'POST',
        '/tasks',
        { projectId: ids.project, name: 'Old' },
        TOKENS.owner,
      );
      const id = created.body.data.id as string;
      expect((await send('DELETE', `/tasks/${id}`, undefined, TOKENS.member, null)).status).toBe(
        403,
      );
      const first = await send('DELETE', `/tasks/${id}`, undefined, TOKENS.manager, null);
      expect(first.status).toBe(200);
      expect(first.body.data.deletedAt).not.toBeNull();
      const again = await send('DELETE', `/tasks/${id}`, undefined, TOKENS.manager, null);
      expect(again.body).toEqual(first.body);
      expect((await send('PATCH', `/tasks/${id}`, { name: 'Z' }, TOKENS.owner, null)).status).toBe(
        404,
      );
      await h.passed(again);
      const row = await readModelRow('tasks', id);
      expect(row?.deleted_at).toBeInstanceOf(Date);
    });
  });

  describe('POST and PATCH /expenses', () => {
    const expense = (extra: object = {}) => ({
      clientId: ids.client,
      description: 'Taxi',
      amount: '12.50',
      expenseDate: '2026-11-01',
      ...extra,
    });

    it('takes the client’s currency (or the base currency) and formats the amount in it', async () => {
      const usd = await send('POST', '/expenses', expense(), TOKENS.manager);
      expect(usd.status).toBe(201);
      expect(usd.body.data).toMatchObject({ currency: 'USD', amount: '12.50', category: 'OTHER' });
      const yen = await send(
        'POST',
        '/expenses',
        expense({ clientId: yenClient, amount: '1500' }),
        TOKENS.manager,
      );
      expect(yen.body.data).toMatchObject({ currency: 'JPY', amount: '1500' });
      const base = await send(
        'POST',
        '/expenses',
        expense({ clientId: noCurrencyClient }),
        TOKENS.manager,
      );
      expect(base.body.data.currency).toBe('EUR');
      await h.passed(yen);
      expect(await readModelRow('expenses', yen.body.data.id as string)).toMatchObject({
        currency: 'JPY',
      });
    });

    it('refuses a currency, decimals beyond the currency, a non-positive amount and a stray customCategory', async () => {
      for (const [body, field] of [
        [expense({ currency: 'USD' }), 'currency'],
        [expense({ clientId: yenClient, amount: '1500.5' }), 'amount'],
        [expense({ amount: '0' }), 'amount'],
        [expense({ amount: '-3' }), 'amount'],
        [expense({ amount: 12.5 }), 'amount'],
        [expense({ category: 'TRAVEL', customCategory: 'Boat' }), 'customCategory'],
        [expense({ projectId: otherProject, clientId: yenClient, amount: '1500' }), 'projectId'],
        [expense({ clientId: '32000000-0000-4000-8000-00000000dead' }), 'clientId'],
      ] as const) {
        const res = await send('POST', '/expenses', body, TOKENS.manager);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(Object.keys(res.body.error.fields as object), JSON.stringify(body)).toEqual([field]);
      }
      expect(
        (
          await send(
            'POST',
            '/expenses',
            expense({ category: 'OTHER', customCategory: 'Boat' }),
            TOKENS.manager,
          )
        ).status,
      ).toBe(201);
      expect((await send('POST', '/expenses', expense(), TOKENS.member)).status).toBe(403);
    });

    it('re-snapshots the currency when the client changes, and checks the amount against it', async () => {
      const created = await send('POST', '/expenses', expense({ amount: '10.25' }), TOKENS.manager);
      const id = created.body.data.id as string;
      const refused = await send(
        'PATCH',
        `/expenses/${id}`,
        { clientId: yenClient },
        TOKENS.manager,
        null,
      );
      expect(refused.status).toBe(422);
      expect(refused.body.error.fields).toHaveProperty('amount');
      const moved = await send(
        'PATCH',
        `/expenses/${id}`,
        { clientId: yenClient, amount: '1000' },
        TOKENS.manager,
        null,
      );
      expect(moved.status).toBe(200);
      expect(moved.body.data).toMatchObject({ currency: 'JPY', amount: '1000' });
      expect(
        (await send('PATCH', `/expenses/${ids.invoice}`, { amount: '1' }, TOKENS.manager, null))
          .status,
      ).toBe(404);
    });

    it('executes once for 50 concurrent requests with one key', async () => {
      const key = freshKey();
      const body = expense({ description: 'Concurrent' });
      const results = await Promise.all(
        Array.from({ length: 50 }, () => send('POST', '/expenses', body, TOKENS.owner, key)),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
      const created = results.filter((r) => r.status === 201);
      expect(new Set(created.map((r) => r.body.data.id as string)).size).toBe(1);
      const { rows } = await h.pool.query(
        "SELECT count(*)::int AS n FROM expenses WHERE description = 'Concurrent'",
      );
      expect(rows[0].n).toBe(1);
    });
  });
});
