import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { buildApp } from '../../src/http/app.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import type { ImportResult } from '../../src/snapshot/import.ts';
import { createKysely, createPool } from '../../src/store/database.ts';
import type { Database } from '../../src/store/schema.ts';
import { fullSync } from '../../src/sync/full-sync.ts';
import { createTestDatabase } from './databases.ts';
import { importObject } from './import-object.ts';

/** Everything a test needs: its own PostgreSQL database, an in-memory read model and the app. */
export interface Harness {
  pool: pg.Pool;
  db: Kysely<Database>;
  readModel: ReadModel;
  status: ReadModelStatus;
  app: FastifyInstance;
  /** Imports a snapshot object (written to a temp JSON file first). */
  importObject(snapshot: unknown, options?: { replace?: boolean }): Promise<ImportResult>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export async function createHarness(): Promise<Harness> {
  const database = await createTestDatabase();
  const pool = createPool(database.url);
  const db = createKysely(pool);
  const readModel = await openReadModel(':memory:');
  const status = new ReadModelStatus();
  const app = await buildApp({ db, readModel, status, tokenEnv: 'test' });
  return {
    pool,
    db,
    readModel,
    status,
    app,
    importObject: (snapshot, options = {}) => importObject(pool, snapshot, options),
    async sync() {
      const result = await fullSync(pool, readModel);
      status.dataAsOf = result.dataAsOf;
    },
    async close() {
      await app.close();
      readModel.close();
      await db.destroy();
      await database.drop();
    },
  };
}
