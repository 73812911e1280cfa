import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { fullSync } from '../../src/sync/full-sync.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { snapshotBoth } from './compare-read-model.ts';
import { createTestDatabase, dropIdleSlots } from './databases.ts';
import { importObject } from './import-object.ts';
import { restrictedRoleUrl } from './restricted-role.ts';
import { smallSnapshot } from './small-snapshot.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

// Each test loads and streams tens of thousands of rows; test files share two cores.
const LONG = 240_000;

export interface SyncEveryWay {
  /** Prepares the new database before anything is written (its settings, say). */
  configure?: (admin: pg.Pool, databaseName: string) => Promise<void>;
  /** Writes the rows under test into the store holding the small workspace. */
  seed: (pool: pg.Pool) => Promise<void>;
  /** Changes written while a sync follows, in `mode`: new rows, and changes to seeded ones. */
  change: (pool: pg.Pool, mode: 'replication' | 'change-log') => Promise<void>;
  /** What must hold of the store's rows (`store`: table -> its rows, each as text) beyond equality. */
  expectStore: (store: Record<string, string[]>) => void;
  /** Bytes of change lines the following syncs hold in memory before a flush (SyncService's flushBytes). */
  flushBytes?: number;
}

/**
 * Registers, in the calling describe block, the three ways rows reach the read model, each
 * into a fresh in-memory read model that must then equal the store row for row: the first
 * load, the logical-replication stream, and the change log (a role without REPLICATION).
 */
export function syncEveryWay(options: SyncEveryWay): void {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;

  const expectEqual = async (readModel: ReadModel) => {
    const duck = await readModel.connect();
    try {
      const { store, readModel: copy } = await snapshotBoth(pool, duck);
      options.expectStore(store);
      for (const table of Object.keys(store)) expect(copy[table], table).toEqual(store[table]);
    } finally {
      duck.closeSync();
    }
  };

  /** Follows the store with a sync over `syncPool` while `change` writes, then compares. */
  const follow = async (syncPool: pg.Pool, mode: 'replication' | 'change-log') => {
    const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    const sync = new SyncService({
      pool: syncPool,
      url: db.url,
      readModel,
      derived: DERIVED_TABLES,
      status: new ReadModelStatus(),
      ...(options.flushBytes ? { flushBytes: options.flushBytes } : {}),
    });
    try {
      await sync.start();
      expect(sync.metrics.mode).toBe(mode);
      await options.change(pool, mode);
      expect(await sync.waitForStore(45_000), sync.metrics.lastError ?? '').toBe(true);
      expect(sync.metrics.lastError).toBeNull();
      await expectEqual(readModel);
    } finally {
      await sync.stop();
      readModel.close();
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    if (options.configure) {
      const admin = createPool(db.url, 1);
      await options.configure(admin, new URL(db.url).pathname.slice(1));
      await admin.end();
    }
    pool = createPool(db.url);
    await importObject(pool, smallSnapshot());
    await options.seed(pool);
  });
  afterAll(async () => {
    await dropIdleSlots(pool);
    await pool.end();
    await db.drop();
  });

  it(
    'the first load copies them exactly',
    async () => {
      const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
      try {
        await fullSync(pool, readModel, DERIVED_TABLES);
        await expectEqual(readModel);
      } finally {
        readModel.close();
      }
    },
    LONG,
  );

  it(
    'the stream (logical replication) applies them exactly',
    () => follow(pool, 'replication'),
    LONG,
  );

  it(
    'the change log applies them exactly',
    async () => {
      const restricted = createPool(await restrictedRoleUrl(db.url));
      try {
        await follow(restricted, 'change-log');
      } finally {
        await restricted.end();
      }
    },
    LONG,
  );
}
