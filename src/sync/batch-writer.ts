import type { DuckDBConnection } from '@duckdb/node-api';
import type { DerivedTables } from '../readmodel/derived-tables.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import { writeSyncState, type SyncState } from '../readmodel/sync-state.ts';
import { ChangeBatch } from './change-batch.ts';
import type { SyncRun } from './change-source.ts';
import { faultPoint } from './fault-points.ts';
import type { FlushCost } from './flush-profile.ts';
import type { BatchCosts } from './sync-metrics.ts';
import type { ReadGate } from '../readmodel/read-gate.ts';
import { dropIndexes, type ReadModel } from '../readmodel/read-model.ts';

/**
 * The DuckDB transaction that changes go into, in both modes. Changes gather in `batch`; a
 * flush writes them into the open transaction (so a huge PostgreSQL transaction does not sit
 * in memory), and `commit` writes sync_state in the same transaction as the rows it covers.
 * So a crash at any point leaves DuckDB at a committed position holding exactly the rows
 * up to it. The caller tells the store (acknowledges) only after `commit` has returned:
 * the store may then forget what comes before, and DuckDB already has it.
 */
export class BatchWriter {
  /** Changes waiting to be written: the replication decoder or the change-log poll fills it. */
  readonly batch: ChangeBatch;
  private open = false;
  /** When the open transaction began, and the statements run in it so far. */
  private began = { at: 0, statements: 0 };

  private readonly duck: DuckDBConnection;
  private readonly derived: readonly DerivedTables[];
  private readonly status: ReadModelStatus;
  /** Where each batch's cost by share is added up (SyncMetrics.batchCosts). */
  private readonly costs: BatchCosts;
  /** Reads not started wait while a batch is written (src/readmodel/read-gate.ts). */
  private readonly gate: ReadGate;
  private readonly readModel: ReadModel;

  /** The writer of a run: its DuckDB connection, tables, derived parts, status and costs. */
  constructor(run: SyncRun) {
    this.duck = run.duck;
    this.derived = run.derived;
    this.status = run.status;
    this.costs = run.costs;
    this.readModel = run.readModel;
    this.gate = run.readModel.gate;
    this.batch = new ChangeBatch(run.tables, run.derived);
  }

  /** Opens the transaction that the next commit closes, when none is open. */
  async begin(): Promise<void> {
    if (this.open) return;
    faultPoint('batch:before-write');
    this.began = { at: performance.now(), statements: 1 };
    this.gate.close();
    await this.duck.run('BEGIN TRANSACTION');
    this.open = true;
  }

  /** Writes the waiting changes into the open transaction (opening it when needed). */
  async flush(): Promise<void> {
    await this.begin();
    if (this.batch.empty) return;
    await this.batch.flush(this.duck);
    const profile = this.batch.lastFlush;
    if (!profile) return;
    for (const [share, cost] of Object.entries(profile.parts)) this.add(share, cost);
    this.began.statements += profile.total.statements;
  }

  /**
   * Empties `tables` in the open transaction. Their waiting changes are dropped (the truncate
   * removes those rows anyway) while other tables' changes keep waiting, so that a retry's
   * fold still writes each key's last row only. The derived parts are rebuilt whole rather
   * than followed through a truncate, which is rare, and the indexes built again after them.
   */
  async truncate(tables: readonly string[]): Promise<void> {
    await this.begin();
    await dropIndexes(this.duck);
    for (const table of tables) {
      this.batch.drop(table);
      await this.duck.run(`DELETE FROM ${table}`);
      this.batch.touchAll(table);
    }
    for (const part of this.derived) await part.rebuild(this.duck);
    await this.readModel.createIndexes(this.duck);
  }

  /**
   * Writes what waits, then `state`, and commits: the read model moves to `state` in one
   * step. Readers never see part of it (DuckDB MVCC), and the read model's status learns
   * what changed before anyone waiting for this commit is released.
   */
  async commit(state: SyncState): Promise<void> {
    await this.flush();
    const committing = performance.now();
    await writeSyncState(this.duck, state);
    faultPoint('batch:before-commit');
    await this.duck.run('COMMIT');
    this.open = false;
    this.gate.open();
    const now = performance.now();
    // writeSyncState is one statement, and so is the COMMIT.
    this.add('commit', { statements: 2, ms: now - committing });
    this.add('batch', { statements: this.began.statements + 2, ms: now - this.began.at });
    this.status.committed(state.dataAsOf, this.batch.takeChanges());
  }

  private add(share: string, cost: Pick<FlushCost, 'statements' | 'ms'>): void {
    const total = (this.costs[share] ??= { statements: 0, ms: 0 });
    total.statements += cost.statements;
    total.ms += cost.ms;
  }

  /** Abandons everything not committed: the transaction, and the changes still waiting. */
  async rollback(): Promise<void> {
    this.batch.clear();
    this.batch.forgetChanges();
    this.gate.open();
    if (!this.open) return;
    this.open = false;
    await this.duck.run('ROLLBACK').catch(() => undefined);
  }
}
