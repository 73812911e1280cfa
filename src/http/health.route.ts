import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import type { Database } from '../store/schema.ts';
import { readStorePosition } from '../store/store-position.ts';
import { parseLsn } from '../sync/lsn.ts';
import type { SyncService } from '../sync/sync-service.ts';

interface Lag {
  bytes: number;
  seconds: number;
}

/** WAL bytes a slot holds back. */
export async function slotHealth(
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
export async function measureLag(
  db: Kysely<Database>,
  sync: SyncService,
  status: ReadModelStatus,
): Promise<Lag> {
  const behind = parseLsn(await readStorePosition(db)) - parseLsn(sync.metrics.appliedLsn);
  const bytes = behind > 0n ? Number(behind) : 0;
  // Behind means the newest applied commit is older than what the store has: its age is the lag.
  const seconds =
    bytes > 0 && status.dataAsOf ? Math.max(0, (Date.now() - status.dataAsOf.getTime()) / 1000) : 0;
  return { bytes, seconds };
}

/**
 * Whether the node has joined: after it starts, and after each reload of its read model, it
 * has not until its read model reached the store's position of the moment within `boundMs`.
 * Measured so, the lag is what a read that waits for a write would wait; a WAL byte count
 * would also count writes the read model does not follow. Once joined, a node stays in
 * rotation while it falls behind (an import, say): reads that need a position wait for it,
 * and taking every node out at once would answer nothing (docs/scale-out.md).
 */
export class JoinGate {
  private joined = false;

  constructor(
    private readonly sync: SyncService,
    private readonly status: ReadModelStatus,
    private readonly boundMs: number,
  ) {}

  async check(): Promise<boolean> {
    if (!this.status.ready) this.joined = false;
    if (this.joined || !this.status.ready) return this.joined;
    if (await this.sync.waitFor(await this.sync.storePosition(), this.boundMs)) this.joined = true;
    return this.joined;
  }
}

/**
 * GET /healthz (200 when the read model can answer and follows the store; 503 before the
 * first load, while a node that started or reloaded catches up (JoinGate), and while the sync
 * is failing, with the error and the table and key of the row it could not apply; GET
 * /metrics is in metrics.ts). Unauthenticated, outside /api/v1, like
 * any health endpoint behind a load balancer; an error is given by its first line only
 * (DuckDB's next lines may quote a row's text).
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  deps: {
    db: Kysely<Database>;
    status: ReadModelStatus;
    sync: SyncService | undefined;
    /** The node's name (NODE_NAME), null for a server alone. */
    node: string | null;
    /** The lag (ms) under which a starting node counts as joined. */
    joinLagMs: number;
  },
): void {
  const gate = deps.sync && new JoinGate(deps.sync, deps.status, deps.joinLagMs);
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    const joined = gate ? await gate.check() : deps.status.ready;
    const lag = deps.sync ? await measureLag(deps.db, deps.sync, deps.status) : undefined;
    const failure = deps.sync?.metrics.failure ?? null;
    const healthy = deps.status.ready && joined && failure === null;
    const body = {
      // Stalled: reads still answer from the read model as it was (X-Data-As-Of), but writes
      // cannot be confirmed (docs/sync.md). Joining: loaded, still catching up on the stream.
      status: failure ? 'stalled' : !deps.status.ready ? 'starting' : joined ? 'ok' : 'joining',
      node: deps.node,
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
}
