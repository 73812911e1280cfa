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
import { StartUpTimes } from './start-up-times.ts';

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
  /** When each phase of opening it began and ended; `serve` adds its own. */
  startUp: StartUpTimes;
}

/**
 * Starts the operational store (the embedded PostgreSQL under DATA_DIR, or DATABASE_URL) and
 * brings its schema up to date.
 */
export async function openStore(
  config: Config,
  log: (line: string) => void = () => undefined,
  times = new StartUpTimes(),
): Promise<Runtime> {
  const started = process.uptime();
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedStore({ dataDir: config.dataDir, onLog: (l) => log(l.trimEnd()) });
  times.record(embedded?.recovered ? 'store (crash recovery)' : 'store', started);
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
    await times.time('migrations', () => migrate(pool));
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
  const startUp = new StartUpTimes();
  startUp.record('node and modules', 0);
  const store = await openStore(config, log, startUp);
  let readModel: ReadModel;
  try {
    readModel = await startUp.time('read model', () =>
      openReadModel(readModelFile(config), READ_MODEL_PARTS),
    );
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
    startUp,
    close: () =>
      (closing ??= (async () => {
        readModel.close();
        await store.close();
      })()),
  };
}
