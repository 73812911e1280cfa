import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import type { DerivedTables } from '../readmodel/derived-tables.ts';
import type { ReadModel } from '../readmodel/read-model.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import type { ColumnInfo } from './copied-columns.ts';
import type { SyncProgress } from './full-sync.ts';
import type { Lsn } from './lsn.ts';
import type { BatchCosts } from './sync-metrics.ts';

/**
 * One attempt at following the store, and what its parts share. SyncService makes a new one
 * at every start and after every failure: whatever was not committed dies with the old one.
 */
export interface SyncRun {
  pool: pg.Pool;
  /** Connection string of the store, for replication connections. */
  url: string;
  readModel: ReadModel;
  status: ReadModelStatus;
  derived: readonly DerivedTables[];
  /** This run's own DuckDB connection: the one that writes. */
  duck: DuckDBConnection;
  /** The copied tables and their read-model columns. */
  tables: Map<string, ColumnInfo[]>;
  log: (line: string) => void;
  onProgress?: (progress: SyncProgress) => void;
  /** What the sync's batches cost so far, by share (SyncMetrics.batchCosts). */
  costs: BatchCosts;
  /** The node's name, which its replication slots carry (NODE_NAME). */
  nodeName?: string;
  /** The publication followed, when not the default one (SyncServiceOptions.publication). */
  publication?: string;
}

/** What a change source reports to the service that composes it. */
export interface SourceEvents {
  /** The read model now shows every change committed at or before `position`. */
  advanced(position: Lsn): void;
  /** A DuckDB commit applied this many row changes. */
  applied(rows: number): void;
  /** The read model was loaded whole. */
  loaded(): void;
  /** The source got past the failure the service retried (a no-op when there was none). */
  recovered(): void;
  /** The source cannot go on: the service abandons this run and retries. */
  failed(error: unknown): void;
}

/**
 * Where changes come from: the logical replication stream (replication-source.ts) or the
 * trigger-fed change log (change-log-source.ts). Either writes what it receives into the
 * read model through a BatchWriter and reports through SourceEvents. A source is made by its
 * `open`, which first loads the read model whole when it has no position the source can
 * follow from.
 */
export interface ChangeSource {
  readonly mode: 'replication' | 'change-log';
  /**
   * Follows the store until `stop`; resolves once following. After a failure (`fold`), the
   * replication stream first folds everything up to the store's current position into one
   * DuckDB commit (docs/sync.md, "When a change cannot be applied"). Later failures go to
   * `SourceEvents.failed`.
   */
  follow(fold: boolean): Promise<void>;
  /** Brings the read model to the store's position at the time of the call. */
  catchUp(): Promise<void>;
  /** Someone waits for a position: move sooner than the usual cadence. */
  hurry(): void;
  /**
   * Stops following: lets the change being applied finish, then rolls back what is not
   * committed. The DuckDB connection stays open (its owner closes it after this).
   */
  stop(): Promise<void>;
}
