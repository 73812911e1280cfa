import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { startEmbeddedStore, type EmbeddedStore } from '../../src/store/embedded-postgres.ts';
import { migrate } from '../../src/store/migrate.ts';
import { formatLsn, parseLsn } from '../../src/sync/lsn.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { withDatabase } from '../support/global-setup.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';

/** The client's notes as the read model shows them. */
async function readModelNotes(duck: DuckDBConnection): Promise<unknown> {
  const reader = await duck.runAndReadAll('SELECT notes FROM clients WHERE id = $id', {
    id: ids.client,
  });
  return reader.getRows()[0]?.[0];
}

function positionSuite(mode: 'replication' | 'change-log') {
  describe(`the read model's position (${mode})`, () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let pool: pg.Pool;
    let readModel: ReadModel;
    let duck: DuckDBConnection;
    let sync: SyncService;

    beforeAll(async () => {
      db = await createTestDatabase();
      const url = mode === 'replication' ? db.url : await restrictedRoleUrl(db.url);
      pool = createPool(url);
      await importObject(pool, smallSnapshot());
      readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
      duck = await readModel.connect();
      sync = new SyncService({
        pool,
        url,
        readModel,
        derived: DERIVED_TABLES,
        status: new ReadModelStatus(),
      });
      expect(sync.position).toBeUndefined();
      await sync.start();
      expect(sync.metrics.mode).toBe(mode);
    });
    afterAll(async () => {
      await sync.stop();
      await dropIdleSlots(pool);
      duck.closeSync();
      readModel.close();
      await pool.end();
      await db.drop();
    });

    it('moves forward, and a write is visible once waitFor(storePosition()) resolves', async () => {
      const loaded = sync.position;
      expect(loaded).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      for (const round of [1, 2, 3]) {
        const before = parseLsn(sync.position!);
        await pool.query('UPDATE clients SET notes = $2 WHERE id = $1', [ids.client, `r${round}`]);
        const written = await sync.storePosition();
        expect(parseLsn(written)).toBeGreaterThan(before);
        expect(await sync.waitFor(written, 10_000)).toBe(true);
        expect(await readModelNotes(duck)).toBe(`r${round}`);
        // A position that covers the write: at or past it (the poll that released a
        // change-log waiter read its position after the write's).
        expect(parseLsn(sync.position!)).toBeGreaterThanOrEqual(parseLsn(written));
      }
      expect(parseLsn(sync.position!)).toBeGreaterThan(parseLsn(loaded!));
    });

    it('answers at once for a position the read model is past', async () => {
      const polls = sync.metrics.batchesApplied;
      const behind = formatLsn(parseLsn(sync.position!) - 1n);
      // No await between the call and the check: nothing else can have polled meanwhile.
      expect(await sync.waitFor(behind, 0)).toBe(true);
      expect(sync.metrics.batchesApplied).toBe(polls);
    });

    if (mode === 'change-log') {
      it('waits for a new poll for the position itself: it is no proof for a commit ending there', async () => {
        const polls = sync.metrics.batchesApplied;
        expect(await sync.waitFor(sync.position!, 10_000)).toBe(true);
        expect(sync.metrics.batchesApplied).toBeGreaterThan(polls);
      });
    } else {
      it('answers at once for the position itself: a commit ending there is applied', async () => {
        const polls = sync.metrics.batchesApplied;
        expect(await sync.waitFor(sync.position!, 0)).toBe(true);
        expect(sync.metrics.batchesApplied).toBe(polls);
      });
    }
  });
}

positionSuite('replication');
positionSuite('change-log');

/**
 * The case the change-log rule exists for: a commit whose record is in the WAL but whose
 * transaction is not visible yet. A server of its own with a synchronous standby that never
 * comes holds a committing transaction right there (after its WAL, before it becomes
 * visible) until its wait is cancelled; every other session commits with
 * synchronous_commit = local and does not wait.
 */
describe('the change-log position and a commit not yet visible', () => {
  let dir: string;
  let store: EmbeddedStore;
  let admin: pg.Client;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;
  let sync: SyncService;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'll-position-'));
    await chmod(dir, 0o755);
    store = await startEmbeddedStore({ dataDir: dir, ephemeral: true });
    admin = new pg.Client({ connectionString: store.url });
    await admin.connect();
    await admin.query('CREATE DATABASE ledger');
    await admin.query('ALTER DATABASE ledger SET synchronous_commit = local');
    const dbUrl = withDatabase(store.url, 'ledger');
    const owner = createPool(dbUrl);
    await migrate(owner);
    await owner.end();
    const url = await restrictedRoleUrl(dbUrl);
    pool = createPool(url);
    await importObject(pool, smallSnapshot());
    // No WAL of the server's own while the test compares positions.
    await admin.query('ALTER SYSTEM SET autovacuum = off');
    await admin.query(`ALTER SYSTEM SET synchronous_standby_names = 'nobody'`);
    await admin.query('SELECT pg_reload_conf()');
    for (;;) {
      const shown = await pool.query<{ names: string }>('SELECT current_setting($1) AS names', [
        'synchronous_standby_names',
      ]);
      if (shown.rows[0]!.names === 'nobody') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
    sync = new SyncService({
      pool,
      url,
      readModel,
      derived: DERIVED_TABLES,
      status: new ReadModelStatus(),
    });
    await sync.start();
    expect(sync.metrics.mode).toBe('change-log');
  });
  afterAll(async () => {
    await sync?.stop();
    duck?.closeSync();
    readModel?.close();
    await pool?.end();
    await admin?.end();
    await store?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a poll that read the position before such a commit became visible does not release its writer', async () => {
    const writer = await pool.connect();
    try {
      await writer.query('SET synchronous_commit = on');
      await writer.query('BEGIN');
      await writer.query('UPDATE clients SET notes = $2 WHERE id = $1', [ids.client, 'held']);
      const { pid } = (await writer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
        .rows[0]!;
      const committing = writer.query('COMMIT');
      for (;;) {
        const activity = await admin.query<{ wait_event: string | null }>(
          'SELECT wait_event FROM pg_stat_activity WHERE pid = $1',
          [pid],
        );
        if (activity.rows[0]?.wait_event === 'SyncRep') break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Polls that start now read a position past the commit record, under a snapshot that
      // does not see the transaction.
      expect(await sync.waitFor('0/0', 10_000)).toBe(true);
      expect(await sync.waitFor('0/0', 10_000)).toBe(true);
      expect(await readModelNotes(duck)).not.toBe('held');
      // Cancelling the wait for the standby leaves the transaction committed, and visible.
      await admin.query('SELECT pg_cancel_backend($1)', [pid]);
      await committing;
      // Usually equal to the last poll's position: no WAL was written since.
      const written = await sync.storePosition();
      expect(await sync.waitFor(written, 10_000)).toBe(true);
      expect(await readModelNotes(duck)).toBe('held');
    } finally {
      writer.release();
    }
  });
});
