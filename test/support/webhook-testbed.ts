import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { WebhookProducer } from '../../src/webhooks/producer.ts';
import type { WebhookSender } from '../../src/webhooks/sender.ts';
import { apiRequest, type ApiRequest, type Body } from './api-request.ts';
import { createHarness, type Harness } from './harness.ts';
import {
  dropWebhookSlots,
  startReceiver,
  startWebhookNode,
  type Received,
  type Receiver,
  type WebhookNode,
} from './webhook-node.ts';
import { smallSnapshot, TOKENS } from './small-snapshot.ts';

// A live server over the small workspace with a webhook producer and sender, and a receiver,
// for the webhook tests (test/webhooks/webhooks-events.test.ts, webhooks-delivery.test.ts).
// Called in a describe: it registers the suite's hooks.

export function webhookTestbed() {
  let h: Harness;
  let receiver: Receiver | undefined;
  const received: Received[] = [];
  /** Per path, the statuses to answer in turn (then 200). */
  const answers = new Map<string, number[]>();
  const nodes: WebhookNode[] = [];
  const producers: WebhookProducer[] = [];
  const senders: WebhookSender[] = [];

  const startNode = (node: string, options: { allowPrivate?: boolean } = {}) => {
    const started = startWebhookNode(h.pool, {
      node,
      allowPrivate: options.allowPrivate ?? true,
      pollMs: 50,
      retryScheduleMs: [100, 100, 100],
      attemptTimeoutMs: 1000,
    });
    nodes.push(started);
    producers.push(started.producer);
    senders.push(started.sender);
    return started;
  };

  beforeAll(async () => {
    h = await createHarness({ live: true, webhookAllowPrivate: true });
    await h.importObject(smallSnapshot());
    await h.sync();
    // Requests to /hang are never answered until the end.
    receiver = await startReceiver(
      (path) => (path === '/hang' ? undefined : (answers.get(path)?.shift() ?? 200)),
      received,
    );
    startNode('node_a');
    // The producer has its slot before the writes begin: events start from it.
    await until(async () => producers[0]!.metrics.producing);
  });
  afterEach(() => {
    received.length = 0;
  });
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    // Senders a test made of its own.
    for (const s of senders) await s.stop();
    receiver?.close();
    if (h) {
      await dropWebhookSlots(h.pool);
      await h.close();
    }
  });

  const call = (request: Omit<ApiRequest, 'token'>) =>
    apiRequest(h.app, { token: TOKENS.owner, ...request });
  const endpoint = async (path: string, events?: string[]) => {
    const res = await call({
      method: 'POST',
      path: '/webhooks',
      body: { url: `${receiver!.base}${path}`, ...(events ? { events } : {}) },
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
