import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { buildApp } from '../../src/http/app.ts';
import type { RateLimitOptions } from '../../src/http/rate-limit.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import type { ImportResult } from '../../src/snapshot/import.ts';
import { createKysely, createPool } from '../../src/store/database.ts';
import type { Database } from '../../src/store/schema.ts';
import { ConnectionPool } from '../../src/readmodel/connection-pool.ts';
import { fullSync } from '../../src/sync/full-sync.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { TokenIdentityCache } from '../../src/tokens/token-identity-cache.ts';
import { createTestDatabase, dropIdleSlots } from './databases.ts';
import { importObject } from './import-object.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/** Everything a test needs: its own PostgreSQL database, an in-memory read model and the app. */
export interface Harness {
  pool: pg.Pool;
  db: Kysely<Database>;
  readModel: ReadModel;
  status: ReadModelStatus;
  app: FastifyInstance;
  /** The running sync of a live harness (logical replication), else undefined. */
  syncService: SyncService | undefined;
  /** The app's token identities, kept current by PostgreSQL's notifications. */
  tokenIdentities: TokenIdentityCache;
  /** The app's read-model connections. */
  connections: ConnectionPool;
  /** Imports a snapshot object (written to a temp JSON file first). */
  importObject(snapshot: unknown, options?: { replace?: boolean }): Promise<ImportResult>;
  /**
   * Brings the read model up to the store: a full copy, or in a live harness the first call
   * starts the sync service and every call waits until it has caught up.
   */
  sync(): Promise<void>;
  /**
   * Live harness: waits until the read model has passed the data position of a write's answer
   * (its X-Data-Position), as the writer's next GET would. Writes answer at their commit, so a
   * test that reads the read model directly after one waits here first.
   */
  passed(answer: { headers: Record<string, unknown> }): Promise<void>;
  close(): Promise<void>;
}

/**
 * `live`: a sync service follows the store by logical replication, so writes through the
 * app wait for the read model as in production (read-your-writes).
 */
export async function createHarness(
  options: {
    live?: boolean;
    rateLimit?: Partial<RateLimitOptions>;
    /** Serve the dashboard's files at `/` (built once per run by the global setup). */
    dashboard?: boolean;
    /**
     * Keep read-model answers (src/http/cached-answers.ts; default true). A test that writes
     * the read model itself, behind the sync, turns it off: no commit tells the cache.
     */
    keepAnswers?: boolean;
    /** How long the token cache waits before it listens again after a loss (ms). */
    tokenReconnectMs?: number;
    /** Let webhooks target private addresses, as the tests' receivers are (docs/webhooks.md). */
    webhookAllowPrivate?: boolean;
  } = {},
): Promise<Harness> {
  const database = await createTestDatabase();
  const pool = createPool(database.url);
  const db = createKysely(pool);
  const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
  const status = new ReadModelStatus();
  const syncService = options.live
    ? new SyncService({ pool, url: database.url, readModel, derived: DERIVED_TABLES, status })
    : undefined;
  const tokenIdentities = await TokenIdentityCache.listen(
    pool,
    undefined,
    options.tokenReconnectMs,
  );
  const connections = new ConnectionPool(readModel);
  const app = await buildApp({
    connections,
    db,
    readModel,
    status,
    tokenEnv: 'test',
    tokenIdentities,
    // Every response of the suite is checked against the schema its route declares.
    validateResponses: true,
    ...(syncService ? { sync: syncService } : {}),
    ...(options.keepAnswers === false ? { answerCacheChars: 0 } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    // A dashboard test drives one token from the page and from the test at once, as fast as
    // the machine answers: 100 requests in 5 s came to be reached there. The per-token limit
    // is not what it tests (test/http/rate-limit.test.ts does).
    ...(options.dashboard && !options.rateLimit
      ? { rateLimit: { requests: 10_000, windowSeconds: 10 } }
      : {}),
    ...(options.dashboard ? { dashboardDir: inject('dashboardDir') } : {}),
    ...(options.webhookAllowPrivate ? { webhookAllowPrivate: true } : {}),
  });
  let started = false;
  return {
    pool,
    db,
    readModel,
    status,
    app,
    syncService,
    importObject: (snapshot, options = {}) => importObject(pool, snapshot, options),
    async sync() {
      if (syncService) {
        if (!started) await syncService.start();
        started = true;
        await syncService.waitForStore();
        return;
      }
      const result = await fullSync(pool, readModel, DERIVED_TABLES);
      status.committed(result.dataAsOf, 'everything');
    },
    async passed(answer) {
      const position = answer.headers['x-data-position'];
      if (typeof position !== 'string') throw new Error('The answer carries no X-Data-Position');
      if (!syncService) throw new Error('Only a live harness follows the store');
      if (!(await syncService.waitFor(position, 10_000)))
        throw new Error(`The read model did not pass ${position} within 10 s`);
    },
    tokenIdentities,
    connections,
    async close() {
      await app.close();
      await tokenIdentities.close();
      if (syncService) {
        await syncService.stop();
        await dropIdleSlots(pool);
      }
      readModel.close();
      await db.destroy();
      await database.drop();
    },
  };
}
