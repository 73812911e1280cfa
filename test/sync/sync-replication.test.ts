import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { buildApp } from '../../src/http/app.ts';
import { createKysely, createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { readSyncState } from '../../src/readmodel/sync-state.ts';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';
import { randomBytes } from 'node:crypto';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

describe('read-model sync by logical replication', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;
  const status = new ReadModelStatus();
  const services: SyncService[] = [];

  const service = () => {
    const s = new SyncService({ pool, url: db.url, readModel, derived: DERIVED_TABLES, status });
    services.push(s);
    return s;
  };
  const currentLsn = async () =>
    (await pool.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!
      .lsn;
  const expectEqual = async () => {
    const { store, readModel: copy } = await snapshotBoth(pool, duck);
    for (const table of Object.keys(store)) expect(copy[table], table).toEqual(store[table]);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
    await importObject(pool, smallSnapshot());
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
    await dropIdleSlots(pool);
    duck.closeSync();
    readModel.close();
    await pool.end();
    await db.drop();
  });

  it('loads the store under the slot snapshot, then follows inserts, updates and deletes', async () => {
    const sync = service();
    await sync.start();
    await expectEqual();
    expect((await readSyncState(duck))?.slotName).toMatch(/^ledgerline_/);

    await pool.query(
      "UPDATE time_entries SET note = 'Moved', duration_seconds = 7200 WHERE id = $1",
      [ids.entry2],
    );
    await pool.query(
      "INSERT INTO fx_rates (id, workspace_id, from_currency, to_currency, effective_from, rate) VALUES ('c0000000-0000-4000-8000-000000000002', $1, 'GBP', 'EUR', '2026-01-01', 1.1600000001)",
      [ids.workspace],
    );
    await pool.query('DELETE FROM payee_credits WHERE id = $1', [ids.credit]);
    await sync.waitFor(await currentLsn());
    await expectEqual();
  });

  it('applies one transaction across many tables, a delete then re-insert of one id, and a key change', async () => {
    const sync = services[0]!;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("UPDATE projects SET name = 'Website v2' WHERE id = $1", [ids.project]);
      await client.query('DELETE FROM time_entries WHERE id = $1', [ids.entry2]);
      await client.query(
        "INSERT INTO time_entries (id, workspace_id, user_id, project_id, entry_date, duration_seconds, note) VALUES ($1, $2, $3, $4, '2026-11-01', 60, 'Back again')",
        [ids.entry2, ids.workspace, ids.owner, ids.project],
      );
      await client.query(
        'UPDATE project_members SET user_id = $1 WHERE project_id = $2 AND user_id = $3',
        [ids.admin, ids.project, ids.owner],
      );
      await client.query("UPDATE tasks SET tags = ARRAY['a,b', 'say \"hi\"'] WHERE id = $1", [
        ids.task,
      ]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await sync.waitFor(await currentLsn());
    await expectEqual();
  });

  it('applies a truncate in order with the changes around it in one transaction', async () => {
    const sync = services[0]!;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        "INSERT INTO fx_rates (id, workspace_id, from_currency, to_currency, effective_from, rate) VALUES ('c0000000-0000-4000-8000-000000000003', $1, 'CHF', 'EUR', '2026-02-01', 1.05)",
        [ids.workspace],
      );
      await client.query("UPDATE clients SET notes = 'before the truncate' WHERE id = $1", [
        ids.client,
      ]);
      await client.query('TRUNCATE fx_rates');
      await client.query(
        "INSERT INTO fx_rates (id, workspace_id, from_currency, to_currency, effective_from, rate) VALUES ('c0000000-0000-4000-8000-000000000004', $1, 'SEK', 'EUR', '2026-03-01', 0.09)",
        [ids.workspace],
      );
      await client.query("UPDATE clients SET phone = 'after the truncate' WHERE id = $1", [
        ids.client,
      ]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await sync.waitFor(await currentLsn());
    await expectEqual();
    const rates = await duck.runAndReadAll('SELECT CAST(id AS VARCHAR) FROM fx_rates');
    expect(rates.getRows()).toEqual([['c0000000-0000-4000-8000-000000000004']]);
  });

  it('keeps a large out-of-line (TOAST) value that an update leaves unchanged', async () => {
    const sync = services[0]!;
    // Random hex does not compress, so 10 kB (the longest note the store holds) is stored out
    // of line, and an update that does not touch it streams it as "unchanged" in the new row.
    const note = randomBytes(5_000).toString('hex');
    await pool.query('UPDATE clients SET notes = $2 WHERE id = $1', [ids.client, note]);
    await pool.query("UPDATE clients SET phone = '+1 555 0100' WHERE id = $1", [ids.client]);
    await sync.waitFor(await currentLsn());
    const row = await duck.runAndReadAll('SELECT length(notes), phone FROM clients');
    expect(row.getRows()).toEqual([[10_000n, '+1 555 0100']]);
    await expectEqual();
  });

  it('catches up after a stop, from the slot, without a new load', async () => {
    await services[0]!.stop();
    const loadsBefore = (await readSyncState(duck))!.fullLoads;
    await pool.query("UPDATE clients SET notes = 'while the sync was down' WHERE id = $1", [
      ids.client,
    ]);
    await pool.query(
      "UPDATE time_entries SET entry_date = '2026-12-01', user_id = $1 WHERE id = $2",
      [ids.member, ids.entry1],
    );
    const sync = service();
    await sync.catchUp();
    await expectEqual();
    expect((await readSyncState(duck))!.fullLoads).toBe(loadsBefore);
  });

  it('reports health and Prometheus metrics, and lets a write wait for the read model', async () => {
    const running = service();
    await running.start();
    const app = await buildApp({
      db: createKysely(pool),
      readModel,
      status,
      tokenEnv: 'test',
      sync: running,
    });
    try {
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toMatchObject({
        status: 'ok',
        sync: { mode: 'replication', lastError: null },
      });
      await pool.query("UPDATE clients SET name = 'Globex Corp' WHERE id = $1", [ids.client]);
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toMatch(/^ledgerline_sync_lag_bytes \d+$/m);
      expect(metrics).toMatch(/^# TYPE ledgerline_sync_rows_applied_total counter$/m);
      expect(metrics).toMatch(/^ledgerline_sync_slot_retained_wal_bytes \d+$/m);
      await running.waitFor(await currentLsn());
      const name = await duck.runAndReadAll('SELECT name FROM clients');
      expect(name.getRows()).toEqual([['Globex Corp']]);
      const after = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(
        Number(/^ledgerline_sync_rows_applied_total (\d+)$/m.exec(after)?.[1]),
      ).toBeGreaterThan(0);
    } finally {
      await app.close();
      await running.stop();
    }
  });

  it('rebuilds by itself when its slot is lost', async () => {
    const lost = (await readSyncState(duck))!.slotName!;
    // The previous test's stream lets go of the slot a moment after its sync stops (the
    // walsender exits after the client has left); dropping an active slot is refused.
    for (let tries = 0; ; tries++) {
      const { rows } = await pool.query<{ active: boolean }>(
        'SELECT active FROM pg_replication_slots WHERE slot_name = $1',
        [lost],
      );
      if (rows[0]?.active !== true || tries >= 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await pool.query('SELECT pg_drop_replication_slot($1)', [lost]);
    await pool.query("UPDATE users SET name = 'Renamed' WHERE id = $1 AND workspace_id = $2", [
      ids.owner,
      ids.workspace,
    ]);
    const sync = service();
    await sync.catchUp();
    await expectEqual();
    const state = (await readSyncState(duck))!;
    expect(state.slotName).not.toBe(lost);
  });
});
