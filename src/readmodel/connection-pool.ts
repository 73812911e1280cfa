import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReadModel } from './read-model.ts';

/**
 * Read-model connections kept between requests: opening one per request cost several
 * milliseconds of a list's budget. A connection whose work failed is closed, never reused,
 * so no request inherits another's open transaction.
 */
export class ConnectionPool {
  private idle: DuckDBConnection[] = [];

  constructor(
    private readonly readModel: ReadModel,
    private readonly maxIdle = 4,
  ) {}

  async use<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = this.idle.pop() ?? (await this.readModel.connect());
    let reusable = false;
    try {
      const result = await work(connection);
      reusable = true;
      return result;
    } finally {
      if (reusable && this.idle.length < this.maxIdle) this.idle.push(connection);
      else connection.closeSync();
    }
  }

  close(): void {
    for (const connection of this.idle.splice(0)) connection.closeSync();
  }
}
