import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import type { FaultPoint } from '../../src/sync/fault-points.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/** Runs the sync in a child process that kills itself with SIGKILL at `crashAt`. */
function syncInChild(
  url: string,
  file: string,
  crashAt?: FaultPoint,
): Promise<NodeJS.Signals | number | null> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/sync-child.ts', url, file],
    {
      env: { ...process.env, LEDGERLINE_CRASH_AT: crashAt ?? '' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
}

async function catchUpInProcess(pool: pg.Pool, url: string, file: string) {
  const readModel = await openReadModel(file, READ_MODEL_PARTS);
  const sync = new SyncService({
    pool,
    url,
    readModel,
    derived: DERIVED_TABLES,
    status: new ReadModelStatus(),
  });
  await sync.catchUp();
  const duck = await readModel.connect();
  const both = await snapshotBoth(pool, duck);
  duck.closeSync();
  readModel.close();
  return both;
}

/** Changes of every kind, several in one transaction, so a crash lands mid-batch. */
async function changeThings(pool: pg.Pool, round: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      'UPDATE time_entries SET duration_seconds = duration_seconds + 60, note = $2 WHERE id = $1',
      [ids.entry1, `round ${round}`],
    );
    await client.query('DELETE FROM time_entries WHERE id = $1', [ids.entry2]);
    await client.query(
      "INSERT INTO time_entries (id, workspace_id, user_id, project_id, entry_date, duration_seconds) VALUES ($1, $2, $3, $4, '2026-11-02', $5)",
      [ids.entry2, ids.workspace, ids.owner, ids.project, 100 + round],
    );
    await client.query('UPDATE clients SET notes = $2 WHERE id = $1', [
      ids.client,
      `round ${round}`,
    ]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  await pool.query('UPDATE fx_rates SET rate = rate + 0.01 WHERE id = $1', [ids.fx]);
}

describe('a sync killed with SIGKILL resumes with nothing lost and nothing doubled', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function setUp(mode: 'replication' | 'change-log' = 'replication') {
    const db = await createTestDatabase();
    const url = mode === 'replication' ? db.url : await restrictedRoleUrl(db.url);
    const pool = createPool(url);
    const dir = await mkdtemp(path.join(tmpdir(), 'll-crash-sync-'));
    cleanups.push(async () => {
      await dropIdleSlots(pool);
      await pool.end();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    });
    await importObject(pool, smallSnapshot());
    return { url, pool, file: path.join(dir, 'read-model.duckdb') };
  }

  it.each<FaultPoint>([
    'initial-load:mid-copy',
    'initial-load:mid-apply',
    'initial-load:before-summaries',
  ])('during the first load (%s)', async (point) => {
    const { url, pool, file } = await setUp();
    expect(await syncInChild(url, file, point)).toBe('SIGKILL');
    await changeThings(pool, 1);
    const { store, readModel } = await catchUpInProcess(pool, url, file);
    expect(readModel).toEqual(store);
    const slots = await pool.query(
      'SELECT slot_name FROM pg_replication_slots WHERE database = current_database()',
    );
    expect(slots.rowCount).toBe(1);
  });

  it.each<FaultPoint>([
    'batch:before-write',
    'batch:before-commit',
    'batch:before-ack',
    'batch:after-ack',
  ])('while applying changes (%s)', async (point) => {
    const { url, pool, file } = await setUp();
    expect(await syncInChild(url, file)).toBe(0);
    await changeThings(pool, 1);
    await changeThings(pool, 2);
    expect(await syncInChild(url, file, point)).toBe('SIGKILL');
    await changeThings(pool, 3);
    const { store, readModel } = await catchUpInProcess(pool, url, file);
    expect(readModel).toEqual(store);
  });

  it.each<FaultPoint>(['initial-load:mid-apply', 'batch:before-commit', 'batch:before-ack'])(
    'in change-log mode (%s)',
    async (point) => {
      const { url, pool, file } = await setUp('change-log');
      if (point.startsWith('batch')) {
        expect(await syncInChild(url, file)).toBe(0);
        await changeThings(pool, 1);
      }
      expect(await syncInChild(url, file, point)).toBe('SIGKILL');
      await changeThings(pool, 2);
      const { store, readModel } = await catchUpInProcess(pool, url, file);
      expect(readModel).toEqual(store);
    },
  );
});
