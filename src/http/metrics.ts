import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ReadWait } from '../readmodel/connection-pool.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import type { Database } from '../store/schema.ts';
import type { SyncMetrics, SyncService } from '../sync/sync-service.ts';
import { measureLag, slotHealth } from './health.route.ts';
import { registerWebhookMetrics, type WebhookParts } from './webhook-metrics.ts';

interface MetricsDependencies {
  db: Kysely<Database>;
  status: ReadModelStatus;
  sync: SyncService | undefined;
  /** The read model's memory by DuckDB's tag (`duckdb_memory()`), in bytes. */
  readModelMemory?: () => Promise<{ tag: string; bytes: number }[]>;
  /** The node's name (NODE_NAME): a `node` label on every metric, for a scrape of many nodes. */
  node?: string;
  /** The node's webhook producer and sender, when it runs them. */
  webhooks?: WebhookParts;
}

/** A gauge or counter whose value is read from the sync's own figures at each scrape. */
type SyncFigure = [
  name: string,
  kind: 'gauge' | 'counter',
  help: string,
  value: (m: SyncMetrics | undefined, status: ReadModelStatus) => number,
];

const SYNC_FIGURES: SyncFigure[] = [
  [
    'ledgerline_read_model_ready',
    'gauge',
    'Whether the read model can answer reports.',
    (_m, status) => (status.ready ? 1 : 0),
  ],
  [
    'ledgerline_sync_rows_applied_total',
    'counter',
    'Row changes applied to the read model.',
    (m) => m?.rowsApplied ?? 0,
  ],
  [
    'ledgerline_sync_batches_applied_total',
    'counter',
    'DuckDB transactions committed by the sync.',
    (m) => m?.batchesApplied ?? 0,
  ],
  [
    'ledgerline_sync_apply_failures_total',
    'counter',
    'Attempts to write changes into the read model that failed (each retry counts).',
    (m) => m?.applyFailures ?? 0,
  ],
  [
    'ledgerline_sync_stalled',
    'gauge',
    'Whether the sync is failing (1 from a failure until a retry gets past it).',
    (m) => (m?.failure ? 1 : 0),
  ],
  [
    'ledgerline_sync_full_loads_total',
    'counter',
    'Full loads of the read model.',
    (m) => m?.fullLoads ?? 0,
  ],
  [
    'ledgerline_sync_last_error_timestamp_seconds',
    'gauge',
    'When the sync last failed (0: never).',
    (m) => (m?.lastErrorAt ? m.lastErrorAt.getTime() / 1000 : 0),
  ],
];

/**
 * GET /metrics in the Prometheus text format, from a registry of this app's own (not
 * prom-client's global one, so a process, or a test, can build several apps): the sync's
 * figures, the Node process's (`collectDefaultMetrics`), and per route pattern (not the raw
 * URL, which would make a series per id), method and status: request counts and durations,
 * and the requests refused by the rate limit. Unauthenticated, outside /api/v1, like
 * /healthz.
 */
export function registerMetrics(
  app: FastifyInstance,
  deps: MetricsDependencies,
): { readWaited: (reason: ReadWait | 'position', seconds: number) => void } {
  const registry = new Registry();
  if (deps.node !== undefined) registry.setDefaultLabels({ node: deps.node });
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  for (const [name, kind, help, value] of SYNC_FIGURES) {
    const read = () => value(deps.sync?.metrics, deps.status);
    if (kind === 'gauge')
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    else
      new Counter({
        name,
        help,
        registers,
        // The sync counts; the counter shows its figure.
        collect() {
          this.reset();
          this.inc(read());
        },
      });
  }
  // What the sync's batches cost, by share (SyncMetrics.batchCosts): a batch's statements and
  // time split into the change files' load, the apply, each derived part and the commit.
  for (const [name, help, figure] of [
    [
      'ledgerline_sync_batch_statements_total',
      'DuckDB statements the sync ran in its batches, by share (batch: all of them).',
      'statements',
    ],
    [
      'ledgerline_sync_batch_seconds_total',
      'Time the sync spent in its batches, by share (batch: BEGIN to COMMIT).',
      'ms',
    ],
  ] as const)
    new Counter({
      name,
      help,
      labelNames: ['share'],
      registers,
      collect() {
        this.reset();
        for (const [share, cost] of Object.entries(deps.sync?.metrics.batchCosts ?? {}))
          this.inc({ share }, figure === 'ms' ? cost.ms / 1000 : cost.statements);
      },
    });
  new Gauge({
    name: 'ledgerline_sync_last_error_info',
    help: 'The last sync error message.',
    labelNames: ['message'],
    registers,
    collect() {
      const error = deps.sync?.metrics.lastError ?? null;
      this.reset();
      this.set({ message: error ?? '' }, error ? 1 : 0);
    },
  });
  // These two ask PostgreSQL, once per scrape (below), not once per gauge.
  const lagSeconds = new Gauge({
    name: 'ledgerline_sync_lag_seconds',
    help: 'Age of the newest applied commit while changes wait to be applied.',
    registers,
  });
  const lagBytes = new Gauge({
    name: 'ledgerline_sync_lag_bytes',
    help: 'WAL bytes the read model has not applied yet.',
    registers,
  });
  const slotRetained = new Gauge({
    name: 'ledgerline_sync_slot_retained_wal_bytes',
    help: 'WAL the replication slot holds back on the server (bounded by max_slot_wal_keep_size).',
    registers,
  });

  // Beside the process's RSS: what of it is DuckDB's (its buffer pool and what its statements
  // hold), by DuckDB's own tag (base tables, ART indexes, hash tables, ...).
  const duckdbMemory = new Gauge({
    name: 'ledgerline_duckdb_memory_bytes',
    help: 'Memory the read model (DuckDB) holds, by tag of duckdb_memory().',
    labelNames: ['tag'],
    registers,
  });

  const webhooks = deps.webhooks && registerWebhookMetrics(registry, deps.db, deps.webhooks);

  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'ledgerline_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status code.',
    labelNames,
    registers,
  });
  const durations = new Histogram({
    name: 'ledgerline_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by route pattern, method and status code.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  // Where a read's time goes before its statements run: its data position (its token's last
  // write, or the one it sent), a sync batch being written, its turn among the reads.
  const readWaits = new Histogram({
    name: 'ledgerline_read_wait_seconds',
    help: 'Time a read of the read model waited before it ran, by reason: position, batch or turn.',
    labelNames: ['reason'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  });
  const refused = new Counter({
    name: 'ledgerline_http_rate_limited_total',
    help: 'Requests refused with 429 rate_limited.',
    registers,
  });

  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      // No route (a 404 of the router) has no pattern: one series for all of them.
      route: request.routeOptions.url ?? '(no route)',
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    durations.observe(labels, reply.elapsedTime / 1000);
    // The rate limit is the only source of 429 (docs/contract.md, "Errors").
    if (reply.statusCode === 429) refused.inc();
  });
  app.addHook('onClose', async () => registry.clear());

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const m = deps.sync?.metrics;
    const lag = deps.sync
      ? await measureLag(deps.db, deps.sync, deps.status)
      : { bytes: 0, seconds: 0 };
    const slot = m?.slotName ? await slotHealth(deps.db, m.slotName) : undefined;
    lagSeconds.set(lag.seconds);
    lagBytes.set(lag.bytes);
    slotRetained.set(slot ? Number(slot.retainedBytes) : 0);
    await webhooks?.refresh();
    if (deps.readModelMemory && deps.status.ready) {
      duckdbMemory.reset();
      for (const { tag, bytes } of await deps.readModelMemory()) duckdbMemory.set({ tag }, bytes);
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
  return { readWaited: (reason, seconds) => readWaits.observe({ reason }, seconds) };
}
