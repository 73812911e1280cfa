import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Registry } from 'prom-client';
import { registerWebhookMetrics } from '../../src/http/webhook-metrics.ts';
import { pruneWebhooks } from '../../src/webhooks/retention.ts';
import { WebhookSender } from '../../src/webhooks/sender.ts';
import { ids } from '../support/small-snapshot.ts';
import type { Body } from '../support/api-request.ts';
import { until, webhookTestbed } from '../support/webhook-testbed.ts';

// Webhook delivery (docs/webhooks.md, "The senders"): retries, rotation, two nodes, metrics, a
// hanging receiver, a refused target, retention; through a receiver inside the test.

describe('webhook deliveries', () => {
  const t = webhookTestbed();
  const { received, answers, producers, senders, startNode, call, endpoint, verified } = t;

  it('deletes events past the retention that no delivery waits for, and old attempts', async () => {
    const { id } = await endpoint('/retention', ['client.created']);
    const event = (name: string, daysAgo: number) =>
      t.h.pool.query(
        `INSERT INTO webhook_events (id, workspace_id, type, record_id, commit_lsn, occurred_at, body)
         VALUES ($1, $2, 'client.created', $1, '0/1', now() - $3::interval, '{}')`,
        [name, ids.workspace, `${daysAgo} days`],
      );
    await event('msg_retention_old_delivered', 31);
    await event('msg_retention_old_pending', 31);
    await event('msg_retention_recent', 29);
    await t.h.pool.query(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, record_id, state, next_attempt_at)
       VALUES ($1, 'msg_retention_old_delivered', 'a', 'delivered', now()),
              ($1, 'msg_retention_old_pending', 'b', 'pending', now() + interval '1 day')`,
      [id],
    );
    await t.h.pool.query(
      `INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempted_at, status_code, duration_ms)
       VALUES ($1, 'msg_retention_old_delivered', 'client.created', now() - interval '31 days', 200, 5),
              ($1, 'msg_retention_recent', 'client.created', now() - interval '29 days', 200, 5)`,
      [id],
    );
    expect(await pruneWebhooks(t.h.pool, { batch: 1 })).toBe(1);
    const left = await t.h.pool.query<{ id: string }>(
      "SELECT id FROM webhook_events WHERE id LIKE 'msg_retention_%' ORDER BY id",
    );
    expect(left.rows.map((r) => r.id)).toEqual([
      'msg_retention_old_pending',
      'msg_retention_recent',
    ]);
    const attempts = await t.h.pool.query<{ event_id: string }>(
      'SELECT event_id FROM webhook_attempts WHERE endpoint_id = $1',
      [id],
    );
    expect(attempts.rows.map((r) => r.event_id)).toEqual(['msg_retention_recent']);
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
    const metrics = registerWebhookMetrics(registry, t.h.db, { producer: producing, sender });
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
      pool: t.h.pool,
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
