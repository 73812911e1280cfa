import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { WEBHOOK_RECORDS } from '../../src/cli/webhook-records.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/event-types.ts';
import { registerWebhookMetrics } from '../../src/http/webhook-metrics.ts';
import { producerSlotName, WebhookProducer } from '../../src/webhooks/producer.ts';
import { pruneWebhooks } from '../../src/webhooks/retention.ts';
import { WebhookSender } from '../../src/webhooks/sender.ts';
import { apiRequest, type ApiRequest, type Body } from '../support/api-request.ts';
import { dropIdleSlots } from '../support/databases.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// Webhooks end to end (docs/webhooks.md): real writes through the API and straight into the
// store become events from the replication stream, delivered to a receiver inside the test,
// each body verified with the standardwebhooks package (not with this project's signing).

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

describe('webhook events, produced from the stream and delivered', () => {
  let h: Harness;
  let receiver: http.Server;
  let base: string;
  const received: Received[] = [];
  /** Per path, the statuses to answer in turn (then 200). */
  const answers = new Map<string, number[]>();
  /** Requests to /hang, never answered until the end. */
  const hung: http.ServerResponse[] = [];
  const producers: WebhookProducer[] = [];
  const senders: WebhookSender[] = [];

  const startNode = (node: string, options: { allowPrivate?: boolean } = {}) => {
    const sender = new WebhookSender({
      pool: h.pool,
      node,
      allowPrivate: options.allowPrivate ?? true,
      pollMs: 50,
      retryScheduleMs: [100, 100, 100],
      attemptTimeoutMs: 1000,
    });
    const producer = new WebhookProducer({
      pool: h.pool,
      url: (h.pool.options as { connectionString: string }).connectionString,
      sources: WEBHOOK_RECORDS,
      retryMs: 200,
      onProduced: () => sender.nudge(),
    });
    sender.start();
    producer.start();
    producers.push(producer);
    senders.push(sender);
    return { producer, sender };
  };

  beforeAll(async () => {
    h = await createHarness({ live: true, webhookAllowPrivate: true });
    await h.importObject(smallSnapshot());
    await h.sync();
    receiver = http.createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({
          path: request.url!,
          headers: request.headers as Record<string, string>,
          body,
        });
        if (request.url === '/hang') {
          hung.push(response);
          return;
        }
        const queue = answers.get(request.url!) ?? [];
        response.writeHead(queue.shift() ?? 200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    startNode('node_a');
    // The producer has its slot before the writes begin: events start from it.
    await until(async () => producers[0]!.metrics.producing);
  });
  afterEach(() => {
    received.length = 0;
  });
  afterAll(async () => {
    for (const p of producers) await p.stop();
    for (const s of senders) await s.stop();
    for (const response of hung) response.end();
    receiver?.close();
    if (h) {
      await h.pool
        .query('SELECT pg_drop_replication_slot($1)', [await producerSlotName(h.pool)])
        .catch(() => undefined);
      await dropIdleSlots(h.pool);
      await h.close();
    }
  });

  const call = (request: Omit<ApiRequest, 'token'>) =>
    apiRequest(h.app, { token: TOKENS.owner, ...request });
  const endpoint = async (path: string, events?: string[]) => {
    const res = await call({
      method: 'POST',
      path: '/webhooks',
      body: { url: `${base}${path}`, ...(events ? { events } : {}) },
    });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; secret: string };
  };
  /** What `path` received, verified with its secret: the parsed bodies. */
  const verified = (path: string, secret: string) =>
    received
      .filter((r) => r.path === path)
      .map((r) => ({
        id: r.headers['webhook-id']!,
        event: new Webhook(secret).verify(r.body, r.headers) as {
          type: string;
          timestamp: string;
          data: Body;
        },
      }));

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
    const tool = await h.pool.connect();
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
    await h.pool.query("UPDATE invoices SET notes = 'by SQL' WHERE id = $1", [ids.invoice]);

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
    await h.pool.query('UPDATE payees SET name = \'Payee, "renamed" 🧾\' WHERE id = $1', [
      ids.payee,
    ]);
    const [event] = await until(async () => {
      const got = verified('/payees', secret);
      return got.length > 0 ? got : undefined;
    });
    await h.sync();
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
      const tool = await h.pool.connect();
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
        await h.sync();
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
    await h.sync();
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
    await h.pool.query("UPDATE workspaces SET plan = 'studio' WHERE id = $1", [ids.workspace]);
    try {
      for (const [n, status] of [
        [1, 'DRAFT'],
        [2, 'APPROVED'],
      ] as const)
        await h.pool.query(
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
      await h.pool.query("UPDATE workspaces SET plan = 'agency' WHERE id = $1", [ids.workspace]);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(verified('/drafts', secret).map((e) => e.event.data.number as string)).toEqual([
      'STUDIO-2',
    ]);
  });

  it('deletes events past the retention that no delivery waits for, and old attempts', async () => {
    const { id } = await endpoint('/retention', ['client.created']);
    const event = (name: string, daysAgo: number) =>
      h.pool.query(
        `INSERT INTO webhook_events (id, workspace_id, type, record_id, commit_lsn, occurred_at, body)
         VALUES ($1, $2, 'client.created', $1, '0/1', now() - $3::interval, '{}')`,
        [name, ids.workspace, `${daysAgo} days`],
      );
    await event('msg_retention_old_delivered', 31);
    await event('msg_retention_old_pending', 31);
    await event('msg_retention_recent', 29);
    await h.pool.query(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, record_id, state, next_attempt_at)
       VALUES ($1, 'msg_retention_old_delivered', 'a', 'delivered', now()),
              ($1, 'msg_retention_old_pending', 'b', 'pending', now() + interval '1 day')`,
      [id],
    );
    await h.pool.query(
      `INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempted_at, status_code, duration_ms)
       VALUES ($1, 'msg_retention_old_delivered', 'client.created', now() - interval '31 days', 200, 5),
              ($1, 'msg_retention_recent', 'client.created', now() - interval '29 days', 200, 5)`,
      [id],
    );
    expect(await pruneWebhooks(h.pool, { batch: 1 })).toBe(1);
    const left = await h.pool.query<{ id: string }>(
      "SELECT id FROM webhook_events WHERE id LIKE 'msg_retention_%' ORDER BY id",
    );
    expect(left.rows.map((r) => r.id)).toEqual([
      'msg_retention_old_pending',
      'msg_retention_recent',
    ]);
    const attempts = await h.pool.query<{ event_id: string }>(
      'SELECT event_id FROM webhook_attempts WHERE endpoint_id = $1',
      [id],
    );
    expect(attempts.rows.map((r) => r.event_id)).toEqual(['msg_retention_recent']);
  });

  it('sends only the types an endpoint asked for', async () => {
    const { secret } = await endpoint('/invoices-only', ['invoice.updated']);
    await call({ method: 'POST', path: '/clients', body: { name: 'Not for it' } });
    await h.pool.query("UPDATE invoices SET notes = 'for it' WHERE id = $1", [ids.invoice]);
    await until(async () => verified('/invoices-only', secret).length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(verified('/invoices-only', secret).map((e) => e.event.type)).toEqual([
      'invoice.updated',
    ]);
  });

  it('retries a receiver that answers 500 with the same webhook-id, then logs both attempts', async () => {
    const { id, secret } = await endpoint('/flaky', ['client.created']);
    answers.set('/flaky', [500, 503]);
    await call({ method: 'POST', path: '/clients', body: { name: 'Flaky receiver' } });
    await until(async () => received.filter((r) => r.path === '/flaky').length >= 3);
    const seen = received.filter((r) => r.path === '/flaky');
    expect(new Set(seen.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(verified('/flaky', secret)).toHaveLength(3);
    const log = await until(async () => {
      const res = await call({ method: 'GET', path: `/webhooks/${id}/deliveries` });
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
      return (res.body.data as Body[]).length >= 3 ? (res.body.data as Body[]) : undefined;
    });
    expect(log.map((a) => a.statusCode as number)).toEqual([200, 503, 500]);
  });

  it('signs with the old secret beside the new for a day after a rotation', async () => {
    const { id, secret: old } = await endpoint('/rotated', ['client.created']);
    const rotated = await call({ method: 'POST', path: `/webhooks/${id}/rotate-secret` });
    const fresh = (rotated.body.data as Body).secret as string;
    await call({ method: 'POST', path: '/clients', body: { name: 'After a rotation' } });
    await until(async () => received.some((r) => r.path === '/rotated'));
    const message = received.find((r) => r.path === '/rotated')!;
    expect(message.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [old, fresh])
      expect(() => new Webhook(secret).verify(message.body, message.headers)).not.toThrow();
  });

  it('produces each event once and sends it once with two nodes running', async () => {
    startNode('node_b');
    const { secret } = await endpoint('/two-nodes', ['client.created']);
    for (let i = 0; i < 5; i++)
      await call({ method: 'POST', path: '/clients', body: { name: `Two nodes ${i}` } });
    await until(async () => verified('/two-nodes', secret).length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = verified('/two-nodes', secret);
    expect(events).toHaveLength(5);
    expect(new Set(events.map((e) => e.id)).size).toBe(5);
    expect(producers.filter((p) => p.metrics.producing)).toHaveLength(1);
  });

  it("counts what the node produced and delivered, and each endpoint's queue, for /metrics", async () => {
    const registry = new Registry();
    const producing = producers.find((p) => p.metrics.producing)!;
    const sender = senders[producers.indexOf(producing)]!;
    const metrics = registerWebhookMetrics(registry, h.db, { producer: producing, sender });
    // A receiver that is down: its deliveries wait in the queue.
    const { id } = await endpoint('/down', ['client.created']);
    answers.set('/down', [500, 500, 500, 500]);
    await call({ method: 'POST', path: '/clients', body: { name: 'For /metrics' } });
    await until(async () => received.some((r) => r.path === '/down'));
    await metrics.refresh();
    const text = await registry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('ledgerline_webhook_producing')).toBe(1);
    expect(value('ledgerline_webhook_events_produced_total')).toBeGreaterThan(0);
    expect(text).toMatch(/^ledgerline_webhook_delivery_latency_seconds_count \d+$/m);
    expect(text).toContain(`ledgerline_webhook_queued{endpoint="${id}"} 1`);
  });

  it('keeps sending to other endpoints while one hangs, and logs the hang as no answer', async () => {
    const hanging = await endpoint('/hang', ['client.created']);
    const { secret } = await endpoint('/beside-a-hang', ['client.created']);
    for (let i = 0; i < 6; i++)
      await call({ method: 'POST', path: '/clients', body: { name: `Beside a hang ${i}` } });
    await until(async () => verified('/beside-a-hang', secret).length >= 6);
    const log = await until(async () => {
      const res = await call({ method: 'GET', path: `/webhooks/${hanging.id}/deliveries` });
      return (res.body.data as Body[])[0];
    });
    expect(log).toMatchObject({ statusCode: null, error: 'no answer within 1 s' });
    expect(log.durationMs).toBeGreaterThanOrEqual(1000);
  });

  it('refuses at delivery a target that the sender may not reach, and says why', async () => {
    for (const s of senders) await s.stop();
    const strict = new WebhookSender({
      pool: h.pool,
      node: 'strict',
      allowPrivate: false,
      pollMs: 50,
      retryScheduleMs: [60_000],
    });
    strict.start();
    senders.push(strict);
    const { id } = await endpoint('/private', ['client.created']);
    await call({ method: 'POST', path: '/clients', body: { name: 'To a private address' } });
    const log = await until(async () => {
      const res = await call({ method: 'GET', path: `/webhooks/${id}/deliveries` });
      return (res.body.data as Body[])[0];
    });
    expect(log).toMatchObject({ statusCode: null, eventType: 'client.created' });
    expect(log.error).toContain('refused: url resolves to 127.0.0.1');
    expect(received.filter((r) => r.path === '/private')).toEqual([]);
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

/** Polls `check` until it answers something truthy (10 s at most). */
async function until<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waited 10 s for it');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
