import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DerivedTables } from '../../src/readmodel/derived-tables.ts';
import { openReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { createTestDatabase } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';

/**
 * A derived part that fails on a value the copied table takes: a row whose last note starts
 * "boom" does not convert to a number. No cast over the change file finds it (the note fits its column), so
 * the sync finds the row by applying the batch's rows one at a time (ChangeBatch.isolate).
 */
const probe: DerivedTables = {
  name: 'probe',
  tables: [],
  sources: {},
  rebuild: () => Promise.resolve(),
  batch: () => ({
    beforeApply: () => Promise.resolve(),
    afterApply: async (duck, table, source) => {
      if (table === 'time_entries')
        await duck.run(
          `SELECT CAST(note AS INTEGER) FROM (
             SELECT * FROM ${source} QUALIFY row_number() OVER (PARTITION BY id ORDER BY _seq DESC) = 1
           ) WHERE note LIKE 'boom%'`,
        );
    },
    finish: () => Promise.resolve(),
  }),
};

describe('a failure no cast finds', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    await importObject(pool, smallSnapshot());
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  for (const mode of ['replication', 'change-log'] as const) {
    it(`names its table, row and column, and passes once the row is corrected (${mode})`, async () => {
      const syncPool = mode === 'replication' ? pool : createPool(await restrictedRoleUrl(db.url));
      const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
      const sync = new SyncService({
        pool: syncPool,
        url: db.url,
        readModel,
        derived: [...DERIVED_TABLES, probe],
        status: new ReadModelStatus(),
        retryMs: 20,
        retryMaxMs: 200,
      });
      try {
        await sync.start();
        expect(sync.metrics.mode).toBe(mode);
        // One transaction: a good row of another table and of the same one beside the bad one.
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('UPDATE clients SET notes = $2 WHERE id = $1', [
            ids.client,
            `fine, ${mode}`,
          ]);
          for (const [id, note] of [
            [ids.entry1, `fine, ${mode}`],
            [ids.entry2, `boom, "${mode}"`],
          ])
            await client.query('UPDATE time_entries SET note = $2 WHERE id = $1', [id, note]);
          await client.query('COMMIT');
        } finally {
          client.release();
        }
        while (!sync.metrics.failure?.key) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(sync.metrics.failure).toMatchObject({
          table: 'time_entries',
          key: { id: ids.entry2 },
          column: 'note',
        });
        expect(sync.metrics.failure.error).toMatch(/boom/);

        await pool.query('UPDATE time_entries SET note = $2 WHERE id = $1', [
          ids.entry2,
          `corrected, ${mode}`,
        ]);
        expect(await sync.waitForStore(30_000), sync.metrics.lastError ?? '').toBe(true);
        expect(sync.metrics.failure).toBeNull();
        const duck = await readModel.connect();
        try {
          const { store, readModel: copy } = await snapshotBoth(pool, duck);
          expect(copy.time_entries).toEqual(store.time_entries);
        } finally {
          duck.closeSync();
        }
      } finally {
        await sync.stop();
        readModel.close();
        if (syncPool !== pool) await syncPool.end();
      }
    });
  }
});
