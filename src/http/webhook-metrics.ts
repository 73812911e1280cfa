import { sql, type Kysely } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Database } from '../store/schema.ts';
import type { WebhookProducer } from '../webhooks/producer.ts';
import type { WebhookSender } from '../webhooks/sender.ts';

/** The node's webhook producer and sender, for /metrics (docs/webhooks.md, "Metrics"). */
export interface WebhookParts {
  producer: Pick<WebhookProducer, 'metrics'>;
  sender: Pick<WebhookSender, 'metrics' | 'onDelivered'>;
}

/**
 * The webhooks' metrics: whether this node produces, events it produced, deliveries it made
 * and those that ran out of retries, failed attempts, delivery latency (commit to the 2xx),
 * and per endpoint the deliveries queued in the store (read once per scrape by `refresh`).
 */
export function registerWebhookMetrics(
  registry: Registry,
  db: Kysely<Database>,
  parts: WebhookParts,
): { refresh(): Promise<void> } {
  const registers = [registry];
  const figure = (name: string, help: string, value: () => number, kind: 'gauge' | 'counter') =>
    kind === 'gauge'
      ? new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(value());
          },
        })
      : new Counter({
          name,
          help,
          registers,
          collect() {
            this.reset();
            this.inc(value());
          },
        });
  figure(
    'ledgerline_webhook_producing',
    'Whether this node produces the webhook events.',
    () => (parts.producer.metrics.producing ? 1 : 0),
    'gauge',
  );
  figure(
    'ledgerline_webhook_events_produced_total',
    'Webhook events this node produced.',
    () => parts.producer.metrics.produced,
    'counter',
  );
  figure(
    'ledgerline_webhook_delivered_total',
    'Webhook deliveries this node made (a 2xx).',
    () => parts.sender.metrics.delivered,
    'counter',
  );
  figure(
    'ledgerline_webhook_failed_total',
    'Webhook deliveries whose retries ran out on this node.',
    () => parts.sender.metrics.failed,
    'counter',
  );
  figure(
    'ledgerline_webhook_failed_attempts_total',
    'Webhook attempts of this node that got no 2xx.',
    () => parts.sender.metrics.failedAttempts,
    'counter',
  );
  const latency = new Histogram({
    name: 'ledgerline_webhook_delivery_latency_seconds',
    help: "From an event's commit to its receiver's 2xx.",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers,
  });
  parts.sender.onDelivered.push((ms) => latency.observe(ms / 1000));
  const queued = new Gauge({
    name: 'ledgerline_webhook_queued',
    help: 'Webhook deliveries waiting to be sent, per endpoint.',
    labelNames: ['endpoint'],
    registers,
  });
  return {
    async refresh() {
      const { rows } = await sql<{ endpoint_id: string; n: number }>`
        SELECT endpoint_id, count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'
        GROUP BY endpoint_id`.execute(db);
      queued.reset();
      for (const row of rows) queued.set({ endpoint: row.endpoint_id }, row.n);
    },
  };
}
