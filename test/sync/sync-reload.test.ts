import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';

/**
 * A read model whose slot is gone is loaded whole again, committing slice by slice (a copy of
 * 21M rows in one transaction ran out of the read model's memory): while it loads it answers
 * nothing, so no reader sees a half-copied table, and once loaded it shows the store.
 */
describe('a reload of a read model that was answering', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;
  const status = new ReadModelStatus();

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    await importObject(pool, smallSnapshot());
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
  });
  afterAll(async () => {
    await dropIdleSlots(pool);
    duck.closeSync();
    readModel.close();
    await pool.end();
    await db.drop();
  });

  const notes = async () =>
    (
      await duck.runAndReadAll('SELECT notes FROM clients WHERE id = $id', { id: ids.client })
    ).getRows()[0]?.[0];

  it('answers nothing while it loads, then shows the store', async () => {
    const first = new SyncService({
      pool,
      url: db.url,
      readModel,
      derived: DERIVED_TABLES,
      status,
    });
    await first.start();
    await first.stop();
    expect(status.ready).toBe(true);
    // The slot is lost (dropped past max_slot_wal_keep_size, say) and the store moves on. Its
    // walsender may still hold it for a moment after the stop.
    for (let dropped = 0; dropped === 0;) {
      dropped = await dropIdleSlots(pool);
      if (dropped === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await pool.query("UPDATE clients SET notes = 'after the slot was lost' WHERE id = $1", [
      ids.client,
    ]);
    const readyWhileLoading: boolean[] = [];
    const second = new SyncService({
      pool,
      url: db.url,
      readModel,
      derived: DERIVED_TABLES,
      status,
      onProgress: (p) => {
        if (p.phase === 'load') readyWhileLoading.push(status.ready);
      },
    });
    try {
      await second.start();
      expect(second.metrics.mode).toBe('replication');
      expect(readyWhileLoading.length).toBeGreaterThan(1);
      expect(readyWhileLoading.every((ready) => !ready)).toBe(true);
      expect(status.ready).toBe(true);
      expect(await notes()).toBe('after the slot was lost');
      const { rows } = await pool.query<{ n: string }>(
        'SELECT count(*)::text AS n FROM time_entries',
      );
      const copied = await duck.runAndReadAll('SELECT count(*) FROM time_entries');
      expect(String(copied.getRows()[0]![0])).toBe(rows[0]!.n);
    } finally {
      await second.stop();
    }
  });
});
