import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { faultPoint } from '../sync/fault-points.ts';
import { pruneWebhooks, RETENTION_MS } from './retention.ts';
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
  /** Attempts in flight at once on this node (default 512). */
  concurrency?: number;
  /**
   * Attempts in flight at once to one endpoint (default 256): a receiver that takes 2 s keeps
   * up with 100 events a second (200 in flight), and one endpoint never holds all of a node's.
   */
  perEndpoint?: number;
  /** How often it looks for due deliveries when nothing told it (default 250 ms). */
  pollMs?: number;
  /** How long an attempt waits for an answer (default 10 s). */
  attemptTimeoutMs?: number;
  /** How long a claim holds a delivery (default 30 s, longer than an attempt can take). */
  claimMs?: number;
  /** The waits after each failed attempt (default RETRY_SCHEDULE_MS). */
  retryScheduleMs?: readonly number[];
  /** How long events and attempts are kept (default RETENTION_MS, 30 days). */
  retentionMs?: number;
  /** How often the node deletes what is older (default 10 min). */
  pruneEveryMs?: number;
  log?: (line: string) => void;
}

/** An attempt's result, to record. */
interface Outcome {
  delivery: Claimed;
  started: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  ok: boolean;
  attempts: number;
  gaveUp: boolean;
  /** Before the next attempt, when it is retried. */
  waitMs: number;
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
  private soonTimer: NodeJS.Timeout | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private again = false;
  private looking: Promise<void> | undefined;
  private readonly attempts = new Set<Promise<void>>();
  private outcomes: { outcome: Outcome; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly options: SenderOptions) {}

  start(): void {
    this.stopped = false;
    this.nudge();
    this.pruner = setInterval(() => {
      pruneWebhooks(this.options.pool, {
        retentionMs: this.options.retentionMs ?? RETENTION_MS,
      }).catch((error: unknown) =>
        this.options.log?.(
          `webhooks: pruning: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }, this.options.pruneEveryMs ?? 600_000);
    this.pruner.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.soonTimer);
    clearInterval(this.pruner);
    await this.looking;
    await Promise.allSettled([...this.attempts]);
  }

  /** Looks for due deliveries now (the producer of this process calls it after writing events). */
  nudge(): void {
    if (this.stopped) return;
    if (this.looking) {
      // Looked at before the news: look again once this look is done.
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.again = false;
    this.looking = this.look()
      .catch((error: unknown) =>
        this.options.log?.(
          `webhooks: sender: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
      .finally(() => {
        this.looking = undefined;
        if (this.stopped) return;
        if (this.again) this.nudge();
        else this.timer = setTimeout(() => this.nudge(), this.options.pollMs ?? 250);
      });
  }

  /** Looks for due deliveries shortly: attempts that end together make one look. */
  private soon(): void {
    if (this.stopped || this.looking || this.soonTimer) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = undefined;
      this.nudge();
    }, 50);
  }

  /**
   * Claims due deliveries: per enabled endpoint, the earliest ones (in production order, none
   * behind a pending earlier one of its record) up to the endpoint's room, and at most the
   * node's room in all.
   */
  private async look(): Promise<void> {
    const room = (this.options.concurrency ?? 512) - this.running;
    if (room <= 0) return;
    const inFlight = [...this.inFlight].filter(([, n]) => n > 0);
    const { rows } = await this.options.pool.query<Claimed>(
      `WITH room AS (
         SELECT e.id, $5::integer - coalesce(f.n, 0) AS room
         FROM webhook_endpoints e
         LEFT JOIN unnest($3::uuid[], $4::integer[]) AS f (id, n) ON f.id = e.id
         WHERE e.enabled
       ), due AS (
         SELECT d.seq FROM room r CROSS JOIN LATERAL (
           SELECT d.seq FROM webhook_deliveries d
           WHERE d.endpoint_id = r.id AND d.state = 'pending' AND d.next_attempt_at <= now()
             AND (d.claimed_until IS NULL OR d.claimed_until < now())
             AND NOT EXISTS (
               SELECT 1 FROM webhook_deliveries p
               WHERE p.endpoint_id = d.endpoint_id AND p.record_id = d.record_id
                 AND p.state = 'pending' AND p.seq < d.seq)
           ORDER BY d.seq LIMIT greatest(r.room, 0) FOR UPDATE SKIP LOCKED
         ) d
         WHERE r.room > 0
         LIMIT $1
       ), claimed AS (
         UPDATE webhook_deliveries d SET claimed_until = now() + $6::interval, claimed_by = $2
         FROM due WHERE d.seq = due.seq
         RETURNING d.seq, d.endpoint_id, d.event_id, d.attempts
       )
       SELECT c.seq::text, c.endpoint_id, c.event_id, c.attempts, e.url, e.secret,
              e.previous_secret, e.previous_secret_until, v.type, v.body, v.occurred_at
       FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id
       JOIN webhook_events v ON v.id = c.event_id ORDER BY c.seq`,
      [
        room,
        this.options.node,
        inFlight.map(([id]) => id),
        inFlight.map(([, n]) => n),
        this.options.perEndpoint ?? 256,
        `${this.options.claimMs ?? CLAIM_MS} milliseconds`,
      ],
    );
    for (const delivery of rows) {
      this.running++;
      this.inFlight.set(delivery.endpoint_id, (this.inFlight.get(delivery.endpoint_id) ?? 0) + 1);
      const attempt = this.attempt(delivery)
        // Not recorded (the store went away): the claim runs out and it is sent again.
        .catch((error: unknown) =>
          this.options.log?.(
            `webhooks: sender: ${error instanceof Error ? error.message : String(error)}`,
          ),
        )
        .finally(() => {
          this.running--;
          this.inFlight.set(delivery.endpoint_id, this.inFlight.get(delivery.endpoint_id)! - 1);
          this.attempts.delete(attempt);
          this.soon();
        });
      this.attempts.add(attempt);
    }
  }

  private async attempt(d: Claimed): Promise<void> {
    const started = new Date();
    const result = await this.send(d);
    faultPoint('webhooks:mid-delivery');
    const schedule = this.options.retryScheduleMs ?? RETRY_SCHEDULE_MS;
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const attempts = d.attempts + 1;
    const outcome: Outcome = {
      delivery: d,
      started,
      durationMs: Date.now() - started.getTime(),
      ...result,
      ok,
      attempts,
      gaveUp: !ok && attempts > schedule.length,
      waitMs: schedule[attempts - 1] ?? 0,
    };
    await this.record(outcome);
    if (ok) {
      this.metrics.delivered++;
      const latency = Date.now() - d.occurred_at.getTime();
      for (const listener of this.onDelivered) listener(latency);
    } else {
      this.metrics.failedAttempts++;
      if (outcome.gaveUp) this.metrics.failed++;
    }
  }

  /**
   * Records an attempt: with the others that ended within 50 ms (at most 200), in one
   * transaction of the store; resolved once it is committed.
   */
  private record(outcome: Outcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.outcomes.push({ outcome, resolve, reject });
      if (this.outcomes.length >= 200) this.flush();
      else this.flushTimer ??= setTimeout(() => this.flush(), 50);
    });
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.outcomes.splice(0);
    if (batch.length === 0) return;
    this.flushing = this.flushing
      .then(() => this.write(batch.map((b) => b.outcome)))
      .then(
        () => batch.forEach((b) => b.resolve()),
        (error: unknown) => batch.forEach((b) => b.reject(error)),
      );
  }

  private async write(outcomes: Outcome[]): Promise<void> {
    const seqs = (of: Outcome[]) => of.map((o) => o.delivery.seq);
    const attempts = (of: Outcome[]) => of.map((o) => o.attempts);
    const endpoints = (of: Outcome[]) => [...new Set(of.map((o) => o.delivery.endpoint_id))];
    const delivered = outcomes.filter((o) => o.ok);
    const failed = outcomes.filter((o) => o.gaveUp);
    const retried = outcomes.filter((o) => !o.ok && !o.gaveUp);
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO webhook_attempts (endpoint_id, event_id, event_type, attempted_at, status_code, error, duration_ms)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::integer[],
           $6::text[], $7::integer[])`,
        [
          outcomes.map((o) => o.delivery.endpoint_id),
          outcomes.map((o) => o.delivery.event_id),
          outcomes.map((o) => o.delivery.type),
          outcomes.map((o) => o.started),
          outcomes.map((o) => o.status),
          outcomes.map((o) => o.error),
          outcomes.map((o) => o.durationMs),
        ],
      );
      for (const [of, state] of [
        [delivered, 'delivered'],
        [failed, 'failed'],
      ] as const)
        if (of.length > 0)
          await client.query(
            `UPDATE webhook_deliveries d SET state = $3, attempts = u.attempts, finished_at = now(),
               claimed_until = NULL
             FROM unnest($1::bigint[], $2::integer[]) AS u (seq, attempts) WHERE d.seq = u.seq`,
            [seqs(of), attempts(of), state],
          );
      if (retried.length > 0)
        await client.query(
          `UPDATE webhook_deliveries d SET attempts = u.attempts,
             next_attempt_at = now() + u.wait * interval '1 millisecond', claimed_until = NULL
           FROM unnest($1::bigint[], $2::integer[], $3::bigint[]) AS u (seq, attempts, wait)
           WHERE d.seq = u.seq`,
          [seqs(retried), attempts(retried), retried.map((o) => o.waitMs)],
        );
      if (delivered.length > 0)
        await client.query(
          `UPDATE webhook_endpoints SET failing_since = NULL
           WHERE id = ANY ($1::uuid[]) AND failing_since IS NOT NULL`,
          [endpoints(delivered)],
        );
      // Failing from its first delivery that ran out of retries; disabled after days of it.
      if (failed.length > 0)
        await client.query(
          `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()),
             enabled = CASE WHEN failing_since < now() - $2::interval THEN false ELSE enabled END,
             disabled_reason = CASE WHEN failing_since < now() - $2::interval
               THEN 'every delivery failed for ' || $3 ELSE disabled_reason END
           WHERE id = ANY ($1::uuid[])`,
          [endpoints(failed), `${DISABLE_AFTER_MS} milliseconds`, '5 days'],
        );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
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
