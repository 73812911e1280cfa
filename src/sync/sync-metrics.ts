import { ApplyError, firstLine } from './apply-error.ts';
import type { FlushCost } from './flush-profile.ts';
import { formatLsn, ZERO_LSN } from './lsn.ts';

/** Why the read model stopped following the store, until a retry gets past it. */
export interface SyncFailure {
  /** The error's first line (the rest of a DuckDB message may quote row text). */
  error: string;
  /** The table whose changes could not be applied, when that was the failure. */
  table: string | null;
  /** Primary key of the row holding a value the read model cannot hold, when one was found. */
  key: Record<string, string> | null;
  column: string | null;
  /** When the first of these failures happened. */
  since: Date;
  /** Failed attempts so far; the next waits min(retryMs × 2^(attempts−1), retryMaxMs). */
  attempts: number;
}

/**
 * What the sync's DuckDB batches cost since the process started, by share: each share of a
 * flush (`load`, `apply`, each derived part by its name: FlushProfile), `commit` (the sync
 * position and COMMIT), and `batch`, each whole batch from BEGIN to COMMIT.
 */
export type BatchCosts = Record<string, Pick<FlushCost, 'statements' | 'ms'>>;

/** What /metrics and /healthz report. */
export interface SyncMetrics {
  mode: 'replication' | 'change-log' | 'starting';
  appliedLsn: string;
  rowsApplied: number;
  batchesApplied: number;
  fullLoads: number;
  lastError: string | null;
  lastErrorAt: Date | null;
  lastCommitAt: Date | null;
  /** The replication slot followed (replication mode). */
  slotName: string | null;
  /** Attempts to write changes into the read model that failed (every retry counts). */
  applyFailures: number;
  /** Set while the sync is failing: from a failure until a retry has caught up. */
  failure: SyncFailure | null;
  batchCosts: BatchCosts;
}

export function newSyncMetrics(): SyncMetrics {
  return {
    mode: 'starting',
    appliedLsn: formatLsn(ZERO_LSN),
    rowsApplied: 0,
    batchesApplied: 0,
    fullLoads: 0,
    lastError: null,
    lastErrorAt: null,
    lastCommitAt: null,
    slotName: null,
    applyFailures: 0,
    failure: null,
    batchCosts: {},
  };
}

/** Records a failed attempt: the error, and the row it names when it is an ApplyError. */
export function noteFailure(metrics: SyncMetrics, error: unknown): void {
  const apply = error instanceof ApplyError ? error : undefined;
  if (apply) metrics.applyFailures++;
  const message = firstLine(error);
  metrics.lastError = message;
  metrics.lastErrorAt = new Date();
  metrics.failure = {
    error: message,
    table: apply?.table ?? null,
    key: apply?.bad?.key ?? null,
    column: apply?.bad?.column ?? null,
    since: metrics.failure?.since ?? metrics.lastErrorAt,
    attempts: (metrics.failure?.attempts ?? 0) + 1,
  };
}
