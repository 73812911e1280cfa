import path from 'node:path';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { openReadModel, type ReadModel } from '../readmodel/read-model.ts';
import { ReadModelStatus } from '../readmodel/read-model-status.ts';
import { createKysely, createPool } from '../store/database.ts';
import { startEmbeddedStore } from '../store/embedded-postgres.ts';
import { migrate } from '../store/migrate.ts';
import type { Database } from '../store/schema.ts';
import { READ_MODEL_PARTS } from './derived-tables.ts';

export interface Runtime {
  config: Config;
  /** Connection string of the store (the replication connection needs it). */
  url: string;
  pool: pg.Pool;
  db: Kysely<Database>;
  /** Closes everything this runtime opened, in reverse order. Safe to call twice. */
  close(): Promise<void>;
}

export interface ReadModelRuntime extends Runtime {
  readModel: ReadModel;
  status: ReadModelStatus;
}

/**
 * Starts the operational store (the embedded PostgreSQL under DATA_DIR, or DATABASE_URL) and
 * brings its schema up to date.
 */
export async function openStore(
  config: Config,
  log: (line: string) => void = () => undefined,
): Promise<Runtime> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedStore({ dataDir: config.dataDir, onLog: (l) => log(l.trimEnd()) });
  const url = config.databaseUrl ?? embedded!.url;
  const pool = createPool(url);
  const db = createKysely(pool);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await db.destroy().catch(() => undefined);
      await embedded?.stop();
    })());
  try {
    await migrate(pool);
  } catch (error) {
    await close();
    throw error;
  }
  return { config, url, pool, db, close };
}

export function readModelFile(config: Config): string {
  return path.join(config.dataDir, 'read-model.duckdb');
}

/** The store plus the DuckDB read model under DATA_DIR. */
export async function openRuntime(
  config: Config,
  log?: (line: string) => void,
): Promise<ReadModelRuntime> {
  const store = await openStore(config, log);
  let readModel: ReadModel;
  try {
    readModel = await openReadModel(readModelFile(config), READ_MODEL_PARTS);
  } catch (error) {
    await store.close();
    const message = error instanceof Error ? error.message : String(error);
    if (/lock/i.test(message)) {
      throw new Error(
        `The read model ${readModelFile(config)} is open in another process (a running server keeps it in sync)`,
      );
    }
    throw error;
  }
  const status = new ReadModelStatus();
  await status.load(readModel);
  let closing: Promise<void> | undefined;
  return {
    ...store,
    readModel,
    status,
    close: () =>
      (closing ??= (async () => {
        readModel.close();
        await store.close();
      })()),
  };
}
