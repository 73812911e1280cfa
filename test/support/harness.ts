import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { buildApp } from '../../src/http/app.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { importSnapshot, type ImportResult } from '../../src/snapshot/import.ts';
import { readSnapshot } from '../../src/snapshot/read-snapshot.ts';
import { createKysely, createPool } from '../../src/store/database.ts';
import type { Database } from '../../src/store/schema.ts';
import { fullSync } from '../../src/sync/full-sync.ts';
import { createTestDatabase } from './databases.ts';

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
  const dir = await mkdtemp(path.join(tmpdir(), 'll-harness-'));
  let files = 0;
  return {
    pool,
    db,
    readModel,
    status,
    app,
    async importObject(snapshot, options = {}) {
      const file = path.join(dir, `snapshot-${files++}.json`);
      await writeFile(file, JSON.stringify(snapshot));
      return importSnapshot(pool, readSnapshot(file), options);
    },
    async sync() {
      const result = await fullSync(pool, readModel);
      status.dataAsOf = result.dataAsOf;
    },
    async close() {
      await app.close();
      readModel.close();
      await db.destroy();
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
