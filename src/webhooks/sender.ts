import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { faultPoint } from '../sync/fault-points.ts';
import { checkTarget } from './target.ts';

/**
 * The Standard Webhooks specification's recommended retry schedule after a failed attempt:
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27 hours); then the delivery has failed.
 */
export const RETRY_SCHEDULE_MS = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];
/** An endpoint failing for this long is disabled (the specification suggests days). */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
const ATTEMPT_TIMEOUT_MS = 10_000;
/** A claim lasts longer than an attempt can: past it, another node may take the delivery again. */
const CLAIM_MS = 30_000;

export interface SenderOptions {
  pool: pg.Pool;
  /** Names the claims this node makes. */
  node: string;
  allowPrivate: boolean;
  /** Attempts in flight at once on this node (default 16). */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint (default 4), so one slow endpoint holds few. */
  perEndpoint?: number;
  /** How often it looks for due deliveries when nothing told it (default 250 ms). */
  pollMs?: number;
  /** How long an attempt waits for an answer (default 10 s). */
  attemptTimeoutMs?: number;
  /** How long a claim holds a delivery (default 30 s, longer than an attempt can take). */
  claimMs?: number;
  /** The waits after each failed attempt (default RETRY_SCHEDULE_MS). */
  retryScheduleMs?: readonly number[];
  log?: (line: string) => void;
}

interface Claimed {
  seq: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  type: string;
  body: string;
  occurred_at: Date;
}

/**
 * Sends the deliveries the producer queued (docs/webhooks.md, "Senders"). Every node runs
 * one: it claims due deliveries in the store (SKIP LOCKED, held until `claimed_until`), so an
 * attempt is made by one node, and adding nodes adds sending capacity. A record's deliveries
 * to one endpoint go in production order: one is claimable only when no earlier one of the
 * same record to that endpoint is pending.
 */
export class WebhookSender {
  readonly metrics = { delivered: 0, failedAttempts: 0, failed: 0 };
  /** Told of each delivery: ms from its event's commit to the receiver's 2xx (/metrics). */
  readonly onDelivered: ((latencyMs: number) => void)[] = [];
  private readonly inFlight = new Map<string, number>();
  private running = 0;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private readonly attempts = new Set<Promise<void>>();

  constructor(private readonly options: SenderOptions) {}

  start(): void {
    this.stopped = false;
    this.nudge();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.looking;
    await Promise.allSettled([...this.attempts]);
  }

  /** Looks for due deliveries now (the producer of this process calls it after writing events). */
  nudge(): void {
    if (this.stopped || this.looking) return;
    clearTimeout(this.timer);
    this.looking = this.look()
      .catch((error: unknown) =>
        this.options.log?.(
          `webhooks: sender: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
      .finally(() => {
        this.looking = undefined;
        if (!this.stopped) this.timer = setTimeout(() => this.nudge(), this.options.pollMs ?? 250);
      });
  }

  private async look(): Promise<void> {
    const room = (this.options.concurrency ?? 16) - this.running;
    if (room <= 0) return;
    const busy = [...this.inFlight]
      .filter(([, n]) => n >= (this.options.perEndpoint ?? 4))
      .map(([id]) => id);
    const { rows } = await this.options.pool.query<Claimed>(
      `WITH due AS (
         SELECT d.seq FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= now() AND e.enabled
           AND (d.claimed_until IS NULL OR d.claimed_until < now())
           AND NOT (d.endpoint_id = ANY($3::uuid[]))
           AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries p
             WHERE p.endpoint_id = d.endpoint_id AND p.record_id = d.record_id
               AND p.state = 'pending' AND p.seq < d.seq)
         ORDER BY d.seq LIMIT $1 FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET claimed_until = now() + $4::interval, claimed_by = $2
         FROM due WHERE d.seq = due.seq
         RETURNING d.seq, d.endpoint_id, d.event_id, d.attempts
       )
       SELECT c.seq::text, c.endpoint_id, c.event_id, c.attempts, e.url, e.secret,
              e.previous_secret, e.previous_secret_until, v.type, v.body, v.occurred_at
       FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id
       JOIN webhook_events v ON v.id = c.event_id ORDER BY c.seq`,
      [room, this.options.node, busy, `${this.options.claimMs ?? CLAIM_MS} milliseconds`],
    );
    for (const delivery of rows) {
      this.running++;
      this.inFlight.set(delivery.endpoint_id, (this.inFlight.get(delivery.endpoint_id) ?? 0) + 1);
      const attempt = this.attempt(delivery).finally(() => {
        this.running--;
        this.inFlight.set(delivery.endpoint_id, this.inFlight.get(delivery.endpoint_id)! - 1);
        this.attempts.delete(attempt);
        this.nudge();
      });
      this.attempts.add(attempt);
    }
  }

  private async attempt(d: Claimed): Promise<void> {
    const started = new Date();
    const result = await this.send(d);
    faultPoint('webhooks:mid-delivery');
    const durationMs = Date.now() - started.getTime();
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const schedule = this.options.retryScheduleMs ?? RETRY_SCHEDULE_MS;
    const attempts = d.attempts + 1;
    const gaveUp = !ok && attempts > schedule.length;
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempted_at, status_code, error, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [d.endpoint_id, d.event_id, d.type, started, result.status, result.error, durationMs],
      );
      if (ok) {
        await client.query(
          `UPDATE webhook_deliveries SET state = 'delivered', attempts = $2, finished_at = now(),
             claimed_until = NULL WHERE seq = $1`,
          [d.seq, attempts],
        );
        await client.query(
          'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL',
          [d.endpoint_id],
        );
      } else if (gaveUp) {
        await client.query(
          `UPDATE webhook_deliveries SET state = 'failed', attempts = $2, finished_at = now(),
             claimed_until = NULL WHERE seq = $1`,
          [d.seq, attempts],
        );
        // Failing from its first delivery that ran out of retries; disabled after days of it.
        await client.query(
          `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()),
             enabled = CASE WHEN failing_since < now() - $2::interval THEN false ELSE enabled END,
             disabled_reason = CASE WHEN failing_since < now() - $2::interval
               THEN 'every delivery failed for ' || $3 ELSE disabled_reason END
           WHERE id = $1`,
          [d.endpoint_id, `${DISABLE_AFTER_MS} milliseconds`, '5 days'],
        );
      } else {
        await client.query(
          `UPDATE webhook_deliveries SET attempts = $2, next_attempt_at = now() + $3::interval,
             claimed_until = NULL WHERE seq = $1`,
          [d.seq, attempts, `${schedule[attempts - 1]!} milliseconds`],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    if (ok) {
      this.metrics.delivered++;
      const latency = Date.now() - d.occurred_at.getTime();
      for (const listener of this.onDelivered) listener(latency);
    } else {
      this.metrics.failedAttempts++;
      if (gaveUp) this.metrics.failed++;
    }
  }

  /** One POST of the event, signed; its status, or why there was none. */
  private async send(d: Claimed): Promise<{ status: number | null; error: string | null }> {
    const target = await checkTarget(d.url, { allowPrivate: this.options.allowPrivate });
    if (!target.ok) return { status: null, error: `refused: url ${target.problem}` };
    const timestamp = new Date();
    const secrets = [d.secret];
    if (d.previous_secret && d.previous_secret_until && d.previous_secret_until > timestamp)
      secrets.push(d.previous_secret);
    const signature = secrets
      .map((s) => new Webhook(s).sign(d.event_id, timestamp, d.body))
      .join(' ');
    // Connects to the address just checked, not to whatever the name resolves to next.
    const lookup: LookupFunction = (_host, options, callback) => {
      if (options.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    const transport = target.url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      const request = transport.request(
        target.url,
        {
          method: 'POST',
          lookup,
          timeout: this.options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(d.body),
            'user-agent': 'ledgerline-webhooks',
            'webhook-id': d.event_id,
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signature,
          },
        },
        (response) => {
          // The body is read and dropped; redirects are answers like any other (not followed).
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? null, error: null }));
          response.on('error', (error) => resolve({ status: null, error: error.message }));
        },
      );
      request.on('timeout', () =>
        request.destroy(
          new Error(
            `no answer within ${(this.options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS) / 1000} s`,
          ),
        ),
      );
      request.on('error', (error) => resolve({ status: null, error: error.message }));
      request.end(d.body);
    });
  }
}
