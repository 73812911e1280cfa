import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { readSyncState } from '../../src/readmodel/sync-state.ts';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { createTestDatabase } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { ids, smallSnapshot, tinySnapshot } from '../support/small-snapshot.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

describe('read-model sync through the change log (no replication privilege)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let url: string;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;
  const status = new ReadModelStatus();
  const services: SyncService[] = [];
  const service = () => {
    const s = new SyncService({ pool, url, readModel, derived: DERIVED_TABLES, status });
    services.push(s);
    return s;
  };
  const expectEqual = async () => {
    const { store, readModel: copy } = await snapshotBoth(pool, duck);
    for (const table of Object.keys(store)) expect(copy[table], table).toEqual(store[table]);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    url = await restrictedRoleUrl(db.url);
    pool = createPool(url);
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
    await importObject(pool, smallSnapshot());
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
    duck.closeSync();
    readModel.close();
    await pool.end();
    await db.drop();
  });

  it('loads, then follows writes, including a transaction that commits after later ones', async () => {
    const sync = service();
    await sync.start();
    expect(sync.metrics.mode).toBe('change-log');
    await expectEqual();

    const late = await pool.connect();
    await late.query('BEGIN');
    await late.query("UPDATE clients SET notes = 'late' WHERE id = $1", [ids.client]);
    await pool.query(
      "UPDATE time_entries SET project_id = $2, entry_date = '2026-12-24' WHERE id = $1",
      [ids.entry2, ids.project],
    );
    await pool.query('DELETE FROM payee_credits WHERE id = $1', [ids.credit]);
    await sync.waitFor('0/0');
    await expectEqual();
    await late.query('COMMIT');
    late.release();
    await sync.waitFor('0/0');
    await expectEqual();
  });

  it('sees a bulk import, whose foreign-key triggers are off, through its always-on log triggers', async () => {
    await importObject(
      pool,
      tinySnapshot(9, 'agency', 'tt_test_ChangeLogTk9_abcdefghijklmnopqrstuvwxyz012345'),
    );
    await services[0]!.waitFor('0/0');
    await expectEqual();
  });

  it('resumes from its snapshot after a restart, and the log does not grow without bound', async () => {
    await services[0]!.stop();
    await pool.query("UPDATE users SET name = 'Offline edit' WHERE id = $1 AND workspace_id = $2", [
      ids.member,
      ids.workspace,
    ]);
    const sync = service();
    await sync.catchUp();
    expect(sync.metrics.fullLoads).toBe(0);
    await expectEqual();
    // Log rows of transactions the stored snapshot already covers are gone. (Newer ones may
    // stay: xmin is cluster-wide, and other test files' transactions hold it back.)
    const log = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sync_change_log WHERE pg_visible_in_snapshot(txid, $1::pg_snapshot) AND txid < pg_snapshot_xmin($1::pg_snapshot)',
      [(await readSyncState(duck))!.sourceSnapshot],
    );
    expect(log.rows[0]!.n).toBe(0);
  });
});
