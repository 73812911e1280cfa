import path from 'node:path';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { openReadModel, type ReadModel } from '../readmodel/read-model.ts';
import { ReadModelStatus } from '../readmodel/read-model-status.ts';
import { createKysely, createPool } from '../store/database.ts';
import type { EmbeddedStore } from '../store/embedded-postgres.ts';
import { migrate } from '../store/migrate.ts';
import type { Database } from '../store/schema.ts';
import { READ_MODEL_PARTS } from './derived-tables.ts';
import { StartUpTimes } from './start-up-times.ts';
import { startStore } from './store-start.ts';

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

export interface OpenOptions {
  /** Gets the embedded PostgreSQL's log lines. */
  log?: (line: string) => void;
  /** The phases of the start so far; by default a record from the process's start. */
  startUp?: StartUpTimes;
  /** The embedded store, already starting (startStore); by default started here. */
  embedded?: Promise<EmbeddedStore | undefined>;
}

/**
 * Starts the operational store (the embedded PostgreSQL under DATA_DIR, or DATABASE_URL) and
 * brings its schema up to date.
 */
export async function openStore(config: Config, options: OpenOptions = {}): Promise<Runtime> {
  const startUp = options.startUp ?? new StartUpTimes();
  const embedded = await (options.embedded ?? startStore(config, startUp, options.log));
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
    await startUp.time('migrations', () => migrate(pool));
  } catch (error) {
    await close();
    throw error;
  }
  return { config, url, pool, db, close };
}

export function readModelFile(config: Config): string {
  return path.join(config.dataDir, 'read-model.duckdb');
}

/**
 * The store plus the DuckDB read model under DATA_DIR, opened side by side: DuckDB replays its
 * WAL and checks its definitions while PostgreSQL starts (docs/sync.md, "Start-up").
 */
export async function openRuntime(
  config: Config,
  options: OpenOptions = {},
): Promise<ReadModelRuntime> {
  const startUp = options.startUp ?? new StartUpTimes();
  if (!options.startUp) startUp.record('node and modules', 0);
  const [store, readModel] = await Promise.allSettled([
    openStore(config, { ...options, startUp }),
    startUp.time('read model', () => openReadModel(readModelFile(config), READ_MODEL_PARTS)),
  ]);
  if (store.status === 'rejected' || readModel.status === 'rejected') {
    if (readModel.status === 'fulfilled') readModel.value.close();
    if (store.status === 'fulfilled') await store.value.close();
    if (store.status === 'rejected') throw store.reason;
    const error: unknown = (readModel as PromiseRejectedResult).reason;
    const message = error instanceof Error ? error.message : String(error);
    if (/lock/i.test(message)) {
      throw new Error(
        `The read model ${readModelFile(config)} is open in another process (a running server keeps it in sync)`,
      );
    }
    throw error;
  }
  const status = new ReadModelStatus();
  await status.load(readModel.value);
  let closing: Promise<void> | undefined;
  return {
    ...store.value,
    readModel: readModel.value,
    status,
    startUp,
    close: () =>
      (closing ??= (async () => {
        readModel.value.close();
        await store.value.close();
      })()),
  };
}
