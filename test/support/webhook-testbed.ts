import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { WEBHOOK_RECORDS } from '../../src/cli/webhook-records.ts';
import { producerSlotName, WebhookProducer } from '../../src/webhooks/producer.ts';
import { WebhookSender } from '../../src/webhooks/sender.ts';
import { apiRequest, type ApiRequest, type Body } from './api-request.ts';
import { dropIdleSlots } from './databases.ts';
import { createHarness, type Harness } from './harness.ts';
import { smallSnapshot, TOKENS } from './small-snapshot.ts';

// A live server over the small workspace with a webhook producer and sender, and a receiver,
// for the webhook tests (test/webhooks/webhooks-events.test.ts, webhooks-delivery.test.ts).
// Called in a describe: it registers the suite's hooks.

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export function webhookTestbed() {
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

  return {
    get h() {
      return h;
    },
    received,
    answers,
    producers,
    senders,
    startNode,
    call,
    endpoint,
    verified,
  };
}

/** Polls `check` until it answers something truthy (10 s at most). */
export async function until<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waited 10 s for it');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
