import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { WEBHOOK_RECORDS } from '../../src/cli/webhook-records.ts';
import {
  producerSlotName,
  WebhookProducer,
  type ProducerOptions,
} from '../../src/webhooks/producer.ts';
import { WebhookSender, type SenderOptions } from '../../src/webhooks/sender.ts';
import { dropIdleSlots } from './databases.ts';

// What the webhook tests run beside the API: a receiver on 127.0.0.1, and a node's producer
// and sender (test/support/webhook-testbed.ts, test/webhooks/, test/dashboard/webhooks.test.ts).

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>`: an endpoint's URL is this and a path. */
  base: string;
  /** Every request, in the order it came. */
  received: Received[];
  /** Ends the requests left unanswered, and the server. */
  close(): void;
}

/**
 * A receiver that keeps every request (in `received`, a new list unless given) and answers it
 * with `answer(path)`'s status, or leaves it unanswered until `close` when that is undefined.
 */
export async function startReceiver(
  answer: (path: string) => number | undefined = () => 200,
  received: Received[] = [],
): Promise<Receiver> {
  const hung: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({
        path: request.url!,
        headers: request.headers as Record<string, string>,
        body,
      });
      const status = answer(request.url!);
      if (status === undefined) hung.push(response);
      else response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      for (const response of hung) response.end();
      server.close();
    },
  };
}

export interface WebhookNode {
  producer: WebhookProducer;
  sender: WebhookSender;
  stop(): Promise<void>;
}

/**
 * A node's producer and sender over the store of `pool`, as src/cli/serve.ts runs them:
 * started, the sender told of every event the producer writes.
 */
export function startWebhookNode(
  pool: pg.Pool,
  sender: Omit<SenderOptions, 'pool'>,
  producer: Partial<Omit<ProducerOptions, 'pool' | 'sources' | 'onProduced'>> = {},
): WebhookNode {
  const sending = new WebhookSender({ pool, ...sender });
  const producing = new WebhookProducer({
    pool,
    url: (pool.options as { connectionString: string }).connectionString,
    sources: WEBHOOK_RECORDS,
    retryMs: 200,
    ...producer,
    onProduced: () => sending.nudge(),
  });
  sending.start();
  producing.start();
  return {
    producer: producing,
    sender: sending,
    stop: async () => {
      await producing.stop();
      await sending.stop();
    },
  };
}

/** Drops the store's producer slot and the replication slots nobody follows any more. */
export async function dropWebhookSlots(pool: pg.Pool): Promise<void> {
  await pool
    .query('SELECT pg_drop_replication_slot($1)', [await producerSlotName(pool)])
    .catch(() => undefined);
  await dropIdleSlots(pool);
}
