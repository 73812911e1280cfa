import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/event-types.ts';
import { ids } from '../support/small-snapshot.ts';
import type { Body } from '../support/api-request.ts';
import { until, webhookTestbed } from '../support/webhook-testbed.ts';

// Webhook events end to end (docs/webhooks.md): real writes through the API and straight into
// the store become events from the replication stream, delivered to a receiver inside the test,
// each body verified with the standardwebhooks package (not with this project's signing).

describe('webhook events, produced from the stream', () => {
  const t = webhookTestbed();
  const { call, endpoint, verified } = t;

  it('sends every change of a record as its event, signed, from the API and from another tool', async () => {
    const { secret } = await endpoint('/all');
    const name = 'Hooked, "quoted" \\ client 🧾\nsecond line';
    const created = await call({ method: 'POST', path: '/clients', body: { name } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const clientId = (created.body.data as Body).id as string;
    expect(
      (await call({ method: 'PATCH', path: `/clients/${clientId}`, body: { name: `${name} 2` } }))
        .status,
    ).toBe(200);
    const task = await call({
      method: 'POST',
      path: '/tasks',
      body: { projectId: ids.project, name: 'Hooked task' },
      headers: { 'idempotency-key': 'hooked-task' },
    });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    const taskId = (task.body.data as Body).id as string;
    expect((await call({ method: 'DELETE', path: `/tasks/${taskId}` })).status).toBe(200);
    // Another tool writing to the store: its changes come through the stream too, and two
    // changes of one record in one transaction are one event.
    const tool = await t.h.pool.connect();
    try {
      await tool.query('BEGIN');
      await tool.query("UPDATE projects SET name = 'Renamed by SQL' WHERE id = $1", [ids.project]);
      await tool.query("UPDATE projects SET description = 'and described' WHERE id = $1", [
        ids.project,
      ]);
      await tool.query('COMMIT');
    } finally {
      tool.release();
    }
    await t.h.pool.query("UPDATE invoices SET notes = 'by SQL' WHERE id = $1", [ids.invoice]);

    await until(async () => verified('/all', secret).length >= 6);
    const events = verified('/all', secret);
    // Records go out in parallel; one record's events, in commit order.
    expect(events.map((e) => e.event.type).sort()).toEqual([
      'client.created',
      'client.updated',
      'invoice.updated',
      'project.updated',
      'task.created',
      'task.deleted',
    ]);
    const of = (type: string) => events.find((e) => e.event.type === type)!;
    const order = (type: string) => events.indexOf(of(type));
    expect(order('client.created')).toBeLessThan(order('client.updated'));
    expect(order('task.created')).toBeLessThan(order('task.deleted'));
    expect(of('client.created').event.data).toEqual(created.body.data);
    expect(of('client.updated').event.data.name).toBe(`${name} 2`);
    expect(of('task.deleted').event.data).toEqual({ id: taskId, deletedAt: expect.any(String) });
    expect(of('project.updated').event.data).toMatchObject({
      id: ids.project,
      name: 'Renamed by SQL',
      description: 'and described',
    });
    expect(of('invoice.updated').event.data).toMatchObject({ id: ids.invoice, notes: 'by SQL' });
    for (const e of events) {
      expect(e.id).toMatch(/^msg_[a-z2-7]{26}$/);
      expect(Date.parse(e.event.timestamp)).toBeGreaterThan(0);
    }
  });

  it("sends a payee's change with its rates and credits, as GET answers it", async () => {
    const { secret } = await endpoint('/payees', ['payee.updated']);
    await t.h.pool.query('UPDATE payees SET name = \'Payee, "renamed" 🧾\' WHERE id = $1', [
      ids.payee,
    ]);
    const [event] = await until(async () => {
      const got = verified('/payees', secret);
      return got.length > 0 ? got : undefined;
    });
    await t.h.sync();
    const read = await call({ method: 'GET', path: `/team-payouts/payees/${ids.payee}` });
    expect(read.status).toBe(200);
    expect(event!.event.type).toBe('payee.updated');
    expect(event!.event.data).toEqual(read.body.data);
    expect((event!.event.data.rates as Body[]).length).toBeGreaterThan(0);
  });

  /** A record as GET answers it: by its id, or from its list where there is no such route. */
  const readRecord = async (path: string, id: string): Promise<Body | undefined> => {
    const one = await call({ method: 'GET', path: `${path}/${id}` });
    if (one.status === 200) return one.body.data as Body;
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = await call({
        method: 'GET',
        path: `${path}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      });
      expect(page.status, path).toBe(200);
      const found = (page.body.data as Body[]).find((r) => r.id === id);
      if (found) return found;
      cursor = (page.body.pagination as { nextCursor: string | null }).nextCursor;
    }
    return undefined;
  };

  it('produces every event type from real writes, each body the record as GET answers it', async () => {
    const { secret } = await endpoint('/every');
    const text = 'Every, "type" \\ 🧾\nline';
    /** A store transaction of another tool. */
    const inStore = async (...statements: [string, unknown[]][]) => {
      const tool = await t.h.pool.connect();
      try {
        await tool.query('BEGIN');
        for (const [sql, values] of statements) await tool.query(sql, values);
        await tool.query('COMMIT');
      } catch (error) {
        await tool.query('ROLLBACK');
        throw error;
      } finally {
        tool.release();
      }
    };
    /** A copy of a fixture row under a new id, with some columns changed. */
    const copy = (table: string, from: string, to: string, changes: Record<string, unknown>) =>
      [
        `INSERT INTO ${table} SELECT (jsonb_populate_record(NULL::${table},
           to_jsonb(t) || $2::jsonb)).* FROM ${table} t WHERE id = $1`,
        [from, JSON.stringify({ id: to, ...changes })],
      ] as [string, unknown[]];
    // Each kind copied in the store, then changed: by SQL, or through the API where it has no
    // GET (the write answers the record then).
    const kinds = (
      [
        { table: 'clients', path: '/clients', from: ids.client, column: 'name' },
        { table: 'projects', path: '/projects', from: ids.project, column: 'name' },
        { table: 'tasks', path: '/tasks', from: ids.task, column: 'name', patch: 'name' },
        {
          table: 'time_entries',
          path: '/time-entries',
          from: ids.entry1,
          column: 'note',
          patch: 'note',
        },
        {
          table: 'expenses',
          path: '/expenses',
          from: ids.expense,
          column: 'description',
          patch: 'description',
        },
        {
          table: 'invoices',
          path: '/invoices',
          from: ids.invoice,
          column: 'notes',
          changes: { number: 'EVERY-1' },
        },
        {
          table: 'payees',
          path: '/team-payouts/payees',
          from: ids.payee,
          column: 'name',
          changes: { user_id: ids.manager },
        },
      ] as Kind[]
    ).map((kind, i) => ({ ...kind, id: `e0000000-0000-4000-8000-00000000000${i}` }));
    const answered = new Map<string, Body>();
    for (const kind of kinds) {
      await inStore(copy(kind.table, kind.from, kind.id, kind.changes ?? {}));
      if (kind.patch === undefined)
        await inStore([
          `UPDATE ${kind.table} SET ${kind.column} = $2 WHERE id = $1`,
          [kind.id, text],
        ]);
      else {
        await t.h.sync();
        const res = await call({
          method: 'PATCH',
          path: `${kind.path}/${kind.id}`,
          body: { [kind.patch]: text },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        answered.set(kind.id, res.body.data as Body);
      }
    }
    // A payee's rate is part of it: a new one is the payee's change.
    await inStore(
      copy('payee_rates', ids.rate, 'e0000000-0000-4000-8000-0000000000a1', {
        payee_id: kinds.at(-1)!.id,
      }),
    );
    // A bill: made as a draft, a line added, approved; a payment recorded for it, changed.
    const bill = 'e0000000-0000-4000-8000-0000000000b1';
    const payment = 'e0000000-0000-4000-8000-0000000000c1';
    await inStore(
      copy('team_bills', ids.bill, bill, { status: 'DRAFT', number: 'EVERY-1', approved_at: null }),
    );
    await inStore(
      copy('team_bill_lines', ids.billLine, 'e0000000-0000-4000-8000-0000000000b2', {
        bill_id: bill,
        description: text,
      }),
    );
    await inStore([
      "UPDATE team_bills SET status = 'APPROVED', approved_at = now() WHERE id = $1",
      [bill],
    ]);
    await inStore(
      copy('team_payments', ids.payment, payment, {
        status: 'RECORDED',
        reversed_at: null,
        note: text,
      }),
      [
        `INSERT INTO team_payment_allocations (workspace_id, payment_id, bill_id, position, amount)
         VALUES ($1, $2, $3, 0, 10)`,
        [ids.workspace, payment, bill],
      ],
    );
    await inStore(['UPDATE team_payments SET reference = $2 WHERE id = $1', [payment, text]]);

    const last = (id: string) =>
      verified('/every', secret)
        .filter((e) => e.event.data.id === id)
        .at(-1);
    await until(async () => last(payment)?.event.type === 'team_payment.updated');
    await until(
      async () =>
        last(kinds.at(-1)!.id)?.event.data.rates !== undefined &&
        (last(kinds.at(-1)!.id)!.event.data.rates as Body[]).length === 1,
    );
    await t.h.sync();
    // Each record's last event carries it as GET answers it now.
    for (const { path, id } of [
      ...kinds,
      { path: '/team-payouts/bills', id: bill },
      { path: '/team-payouts/payments', id: payment },
    ])
      expect(last(id)?.event.data, path).toEqual(answered.get(id) ?? (await readRecord(path, id)));
    expect(last(bill)!.event.data).toMatchObject({
      amountPaid: '10.00',
      paymentStatus: 'PARTIALLY_PAID',
    });

    // Then reversed, deleted, voided; the copies deleted, some from the store, some softly.
    await inStore([
      "UPDATE team_payments SET status = 'REVERSED', reversed_at = now() WHERE id = $1",
      [payment],
    ]);
    await inStore(['UPDATE team_payments SET deleted_at = now() WHERE id = $1', [payment]]);
    await inStore([
      "UPDATE team_bills SET status = 'VOID', void_reason = $2 WHERE id = $1",
      [bill, text],
    ]);
    await inStore(['UPDATE team_bills SET deleted_at = now() WHERE id = $1', [bill]]);
    for (const kind of [...kinds].reverse())
      await inStore([`DELETE FROM ${kind.table} WHERE id = $1`, [kind.id]]);
    // Records go out in parallel: until each one's last event is its delete.
    await until(async () =>
      [...kinds.map((k) => k.id), bill, payment].every((id) =>
        last(id)?.event.type.endsWith('.deleted'),
      ),
    );

    const events = verified('/every', secret);
    expect([...new Set(events.map((e) => e.event.type))].sort()).toEqual(
      [...WEBHOOK_EVENT_TYPES].sort(),
    );
    // One record's events in commit order.
    const of = (id: string) =>
      events.filter((e) => e.event.data.id === id).map((e) => e.event.type);
    expect(of(bill)).toEqual([
      'team_bill.created',
      'team_bill.updated',
      'team_bill.approved',
      'team_bill.updated',
      'team_bill.updated',
      'team_bill.updated',
      'team_bill.updated',
      'team_bill.voided',
      'team_bill.deleted',
    ]);
    expect(of(payment)).toEqual([
      'team_payment.recorded',
      'team_payment.updated',
      'team_payment.reversed',
      'team_payment.deleted',
    ]);
    for (const kind of kinds)
      expect(of(kind.id), kind.table).toEqual(
        ['created', 'updated', ...(kind.table === 'payees' ? ['updated'] : []), 'deleted'].map(
          (action) =>
            `${events.find((e) => e.event.data.id === kind.id)!.event.type.split('.')[0]}.${action}`,
        ),
      );
  });

  it('tells of no draft bill on a plan without drafts, as its API answers none', async () => {
    const { secret } = await endpoint('/drafts', ['team_bill.created']);
    await t.h.pool.query("UPDATE workspaces SET plan = 'studio' WHERE id = $1", [ids.workspace]);
    try {
      for (const [n, status] of [
        [1, 'DRAFT'],
        [2, 'APPROVED'],
      ] as const)
        await t.h.pool.query(
          `INSERT INTO team_bills SELECT (jsonb_populate_record(NULL::team_bills,
             to_jsonb(t) || $2::jsonb)).* FROM team_bills t WHERE id = $1`,
          [
            ids.bill,
            JSON.stringify({
              id: `e0000000-0000-4000-8000-0000000000d${n}`,
              number: `STUDIO-${n}`,
              status,
            }),
          ],
        );
      await until(async () => verified('/drafts', secret).length > 0);
    } finally {
      await t.h.pool.query("UPDATE workspaces SET plan = 'agency' WHERE id = $1", [ids.workspace]);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(verified('/drafts', secret).map((e) => e.event.data.number as string)).toEqual([
      'STUDIO-2',
    ]);
  });

  it('sends only the types an endpoint asked for', async () => {
    const { secret } = await endpoint('/invoices-only', ['invoice.updated']);
    await call({ method: 'POST', path: '/clients', body: { name: 'Not for it' } });
    await t.h.pool.query("UPDATE invoices SET notes = 'for it' WHERE id = $1", [ids.invoice]);
    await until(async () => verified('/invoices-only', secret).length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(verified('/invoices-only', secret).map((e) => e.event.type)).toEqual([
      'invoice.updated',
    ]);
  });
});

interface Kind {
  table: string;
  path: string;
  from: string;
  column: string;
  changes?: Record<string, unknown>;
  patch?: string;
}
