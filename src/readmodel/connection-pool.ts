import type { DuckDBConnection } from '@duckdb/node-api';
import { PlanCache, type PlanCounts } from './plan-cache.ts';
import type { ReadModel } from './read-model.ts';

interface PooledConnection {
  connection: DuckDBConnection;
  /** Statements planned on this connection, reused while the data is the same. */
  plans: PlanCache;
}

/**
 * Read-model connections kept between requests: opening one per request cost several
 * milliseconds of a list's budget. A connection whose work failed is closed, never reused,
 * so no request inherits another's open transaction.
 */
export class ConnectionPool {
  private idle: PooledConnection[] = [];
  /** Plans made and plans reused on every connection of this pool. */
  readonly planCounts: PlanCounts = { planned: 0, reused: 0 };

  constructor(
    private readonly readModel: ReadModel,
    private readonly maxIdle = 4,
  ) {}

  async use<T>(work: (connection: DuckDBConnection, plans: PlanCache) => Promise<T>): Promise<T> {
    const pooled = this.idle.pop() ?? (await this.open());
    let reusable = false;
    try {
      const result = await work(pooled.connection, pooled.plans);
      reusable = true;
      return result;
    } finally {
      if (reusable && this.idle.length < this.maxIdle) this.idle.push(pooled);
      else closePooled(pooled);
    }
  }

  /** Drops every idle connection's plans (benchmarks measure a report's first request so). */
  clearPlans(): void {
    for (const pooled of this.idle) pooled.plans.clear();
  }

  close(): void {
    for (const pooled of this.idle.splice(0)) closePooled(pooled);
  }

  private async open(): Promise<PooledConnection> {
    const connection = await this.readModel.connect();
    return { connection, plans: new PlanCache(connection, this.planCounts) };
  }
}

function closePooled(pooled: PooledConnection): void {
  pooled.plans.clear();
  pooled.connection.closeSync();
}
