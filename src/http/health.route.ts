import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import type { Database } from '../store/schema.ts';
import { parseLsn } from '../sync/lsn.ts';
import type { SyncService } from '../sync/sync-service.ts';

interface Lag {
  bytes: number;
  seconds: number;
}

/** WAL bytes a slot holds back. */
async function slotHealth(
  db: Kysely<Database>,
  slot: string,
): Promise<{ retainedBytes: bigint } | undefined> {
  const { rows } = await sql<{ retained: string | null }>`
    SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::text AS retained FROM pg_replication_slots WHERE slot_name = ${slot}`.execute(
    db,
  );
  return rows[0] ? { retainedBytes: BigInt(rows[0].retained?.split('.')[0] ?? '0') } : undefined;
}

/** How far the read model is behind the store: WAL bytes not yet applied, and for how long. */
async function measureLag(
  db: Kysely<Database>,
  sync: SyncService,
  status: ReadModelStatus,
): Promise<Lag> {
  const { rows } = await sql<{
    lsn: string;
  }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(db);
  const behind = parseLsn(rows[0]!.lsn) - parseLsn(sync.metrics.appliedLsn);
  const bytes = behind > 0n ? Number(behind) : 0;
  // Behind means the newest applied commit is older than what the store has: its age is the lag.
  const seconds =
    bytes > 0 && status.dataAsOf ? Math.max(0, (Date.now() - status.dataAsOf.getTime()) / 1000) : 0;
  return { bytes, seconds };
}

/**
 * GET /healthz (200 when the read model can answer and follows the store; 503 before the
 * first load, and while the sync is failing, with the error and the table and key of the row
 * it could not apply) and GET /metrics (Prometheus text format): sync lag in seconds and
 * bytes, rows and batches applied, failures, last error. Unauthenticated, outside /api/v1,
 * like any health endpoint behind a load balancer; an error is given by its first line only
 * (DuckDB's next lines may quote a row's text).
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; status: ReadModelStatus; sync: SyncService | undefined },
): void {
  app.get('/healthz', async (_request, reply) => {
    const lag = deps.sync ? await measureLag(deps.db, deps.sync, deps.status) : undefined;
    const failure = deps.sync?.metrics.failure ?? null;
    const healthy = deps.status.ready && failure === null;
    const body = {
      // Stalled: reads still answer from the read model as it was (X-Data-As-Of), but writes
      // cannot be confirmed (docs/sync.md).
      status: failure ? 'stalled' : deps.status.ready ? 'ok' : 'starting',
      dataAsOf: deps.status.dataAsOf?.toISOString() ?? null,
      sync: deps.sync
        ? {
            mode: deps.sync.metrics.mode,
            lagBytes: lag?.bytes ?? 0,
            lagSeconds: lag?.seconds ?? 0,
            lastError: deps.sync.metrics.lastError,
            failure: failure && { ...failure, since: failure.since.toISOString() },
          }
        : null,
    };
    return reply.status(healthy ? 200 : 503).send(body);
  });

  app.get('/metrics', async (_request, reply) => {
    const m = deps.sync?.metrics;
    const lag = deps.sync
      ? await measureLag(deps.db, deps.sync, deps.status)
      : { bytes: 0, seconds: 0 };
    const slot = m?.slotName ? await slotHealth(deps.db, m.slotName) : undefined;
    const lines = [
      metric(
        'ledgerline_read_model_ready',
        'gauge',
        'Whether the read model can answer reports.',
        deps.status.ready ? 1 : 0,
      ),
      metric(
        'ledgerline_sync_lag_seconds',
        'gauge',
        'Age of the newest applied commit while changes wait to be applied.',
        lag.seconds,
      ),
      metric(
        'ledgerline_sync_lag_bytes',
        'gauge',
        'WAL bytes the read model has not applied yet.',
        lag.bytes,
      ),
      metric(
        'ledgerline_sync_rows_applied_total',
        'counter',
        'Row changes applied to the read model.',
        m?.rowsApplied ?? 0,
      ),
      metric(
        'ledgerline_sync_batches_applied_total',
        'counter',
        'DuckDB transactions committed by the sync.',
        m?.batchesApplied ?? 0,
      ),
      metric(
        'ledgerline_sync_slot_retained_wal_bytes',
        'gauge',
        'WAL the replication slot holds back on the server (bounded by max_slot_wal_keep_size).',
        slot ? Number(slot.retainedBytes) : 0,
      ),
      metric(
        'ledgerline_sync_apply_failures_total',
        'counter',
        'Attempts to write changes into the read model that failed (each retry counts).',
        m?.applyFailures ?? 0,
      ),
      metric(
        'ledgerline_sync_stalled',
        'gauge',
        'Whether the sync is failing (1 from a failure until a retry gets past it).',
        m?.failure ? 1 : 0,
      ),
      metric(
        'ledgerline_sync_full_loads_total',
        'counter',
        'Full loads of the read model.',
        m?.fullLoads ?? 0,
      ),
      metric(
        'ledgerline_sync_last_error_timestamp_seconds',
        'gauge',
        'When the sync last failed (0: never).',
        m?.lastErrorAt ? m.lastErrorAt.getTime() / 1000 : 0,
      ),
      `# HELP ledgerline_sync_last_error_info The last sync error message.\n# TYPE ledgerline_sync_last_error_info gauge\nledgerline_sync_last_error_info{message="${escapeLabel(m?.lastError ?? '')}"} ${m?.lastError ? 1 : 0}`,
    ];
    return reply.type('text/plain; version=0.0.4').send(`${lines.join('\n')}\n`);
  });
}

function metric(name: string, type: 'gauge' | 'counter', help: string, value: number): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}`;
}

function escapeLabel(text: string): string {
  return text.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}
