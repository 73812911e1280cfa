import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.ts';
import { openReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createKysely, createPool } from '../../src/store/database.ts';
import { fullSync } from '../../src/sync/full-sync.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { apiRequest, type Body } from '../support/api-request.ts';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { ids, OWNER_TOKEN, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/**
 * A change the read model cannot hold (a timestamp before year 1, which DuckDB cannot read
 * back from PostgreSQL's text) is contained: /healthz and /metrics name it, writes still answer
 * at commit, a read that waits for a write's data position answers 503 after a bounded wait
 * instead of hanging, other reads go on, and once the row is corrected the sync catches up by
 * itself with nothing lost or doubled, and the waiting reads show the writes.
 */
describe('a change the read model cannot hold', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    await importObject(pool, smallSnapshot());
    // The store's own CHECKs (years 0001-9999) would refuse the bad value; drop them here to
    // write what an older store, or a hand-edited one, may hold.
    await pool.query(`DO $$
      DECLARE c record;
      BEGIN
        FOR c IN SELECT conname FROM pg_constraint
          WHERE conrelid = 'time_entries'::regclass AND contype = 'c'
            AND pg_get_constraintdef(oid) LIKE '%started_at%'
        LOOP
          EXECUTE format('ALTER TABLE time_entries DROP CONSTRAINT %I', c.conname);
        END LOOP;
      END $$`);
  });
  afterAll(async () => {
    await dropIdleSlots(pool);
    await pool.end();
    await db.drop();
  });

  const scenario = async (syncPool: pg.Pool, mode: string) => {
    const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    const status = new ReadModelStatus();
    const sync = new SyncService({
      pool: syncPool,
      url: db.url,
      readModel,
      derived: DERIVED_TABLES,
      status,
      retryMs: 20,
      retryMaxMs: 200,
      // Tiny, so the retry's fold spills its lines to disk.
      flushRows: 5,
    });
    let app: FastifyInstance | undefined;
    const duck = await readModel.connect();
    try {
      await sync.start();
      expect(sync.metrics.mode).toBe(mode);
      app = await buildApp({
        db: createKysely(pool),
        readModel,
        status,
        tokenEnv: 'test',
        sync,
        positionWaitMs: 1500,
      });
      const get = async (url: string) => {
        const res = await app!.inject({ method: 'GET', url });
        return { status: res.statusCode, body: res.body, headers: res.headers };
      };
      const health = async () => {
        const res = await get('/healthz');
        return { status: res.status, body: JSON.parse(res.body) as Body };
      };
      const until = async (check: () => Promise<boolean>) => {
        while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      const createClient = (name: string, key: string) =>
        apiRequest(app!, {
          method: 'POST',
          path: '/clients',
          token: OWNER_TOKEN,
          body: { name },
          headers: { 'idempotency-key': key },
        });
      expect((await health()).status).toBe(200);

      // One transaction writes a good row and the bad one: neither may show alone.
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('UPDATE clients SET notes = $2 WHERE id = $1', [
          ids.client,
          `${mode}: with the bad row`,
        ]);
        await client.query(
          "UPDATE time_entries SET started_at = '0001-01-01 09:00:00+00 BC' WHERE id = $1",
          [ids.entry1],
        );
        await client.query('COMMIT');
      } finally {
        client.release();
      }

      await until(async () => (await health()).status === 503);
      const stalled = await health();
      expect(stalled.body).toMatchObject({
        status: 'stalled',
        sync: {
          failure: { table: 'time_entries', key: { id: ids.entry1 }, column: 'started_at' },
        },
      });
      expect(stalled.body.sync.failure.error).toMatch(/BC/);

      // A write answers at its commit, with its data position, whatever the read model does.
      const name = `Made while stalled (${mode})`;
      const key = `stalled-${mode}`;
      const write = await createClient(name, key);
      expect(write.status).toBe(201);
      const position = write.headers['x-data-position'] as string;
      expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      const saved = await pool.query('SELECT count(*)::int AS n FROM clients WHERE name = $1', [
        name,
      ]);
      expect(saved.rows[0].n).toBe(1);
      // Retried with its key while still stalled: replayed from the store.
      const retried = await createClient(name, key);
      expect(retried.status).toBe(201);
      expect(retried.headers['idempotent-replayed']).toBe('true');

      // The writer's next read waits for its write, and answers 503 after the bound.
      const listClients = (token: string, headers: Record<string, string> = {}) =>
        apiRequest(app!, { method: 'GET', path: '/clients', token, headers });
      const ownRead = await listClients(OWNER_TOKEN);
      expect(ownRead.status).toBe(503);
      expect(ownRead.body.error).toMatchObject({ code: 'read_model_unavailable' });
      expect(ownRead.body.error.message).toMatch(/saved/);
      // GET /me is answered by the store: it waits for nothing.
      expect(
        (await apiRequest(app, { method: 'GET', path: '/me', token: OWNER_TOKEN })).status,
      ).toBe(200);
      // Another token is not held back: it reads the read model as it is...
      const otherRead = await listClients(TOKENS.admin);
      expect(otherRead.status).toBe(200);
      expect((otherRead.body.data as Body[]).map((c) => c.name as string)).not.toContain(name);
      // ...unless it sends the write's position, which it then waits for like the writer.
      const echoed = await listClients(TOKENS.admin, { 'x-data-position': position });
      expect(echoed.status).toBe(503);
      // More changes while stalled, past the fold's flushRows; in replication mode a truncate
      // among them (the change log's triggers do not see truncates).
      const fxRates = `INSERT INTO fx_rates (id, workspace_id, from_currency, to_currency, effective_from, rate)
        SELECT md5($2 || i)::uuid, $1, $4, 'EUR', DATE '2020-01-01' + i, 1 + i / 1000.0
        FROM generate_series(1, $3::int) AS i`;
      const [first, second] = mode === 'replication' ? ['CHF', 'SEK'] : ['NOK', 'DKK'];
      await pool.query(fxRates, [ids.workspace, `${mode} a`, 30, first]);
      if (mode === 'replication') await pool.query('TRUNCATE fx_rates');
      await pool.query(fxRates, [ids.workspace, `${mode} b`, 3, second]);
      for (const phone of ['1', '2', '3', '4', '5', '6', '7'])
        await pool.query('UPDATE clients SET phone = $2 WHERE id = $1', [ids.client, phone]);

      // Reads answer from the read model as it was, and say how old it is.
      const list = await apiRequest(app, { method: 'GET', path: '/clients', token: TOKENS.admin });
      expect(list.status).toBe(200);
      expect(list.headers['x-data-as-of']).toBeDefined();
      expect((list.body.data as Body[]).map((c) => c.name as string)).not.toContain(name);

      const metrics = (await get('/metrics')).body;
      expect(
        Number(/^ledgerline_sync_apply_failures_total (\d+)$/m.exec(metrics)?.[1]),
      ).toBeGreaterThan(0);
      expect(metrics).toMatch(/^ledgerline_sync_stalled 1$/m);

      // Corrected in the store, the row is applied on the next retry, with everything after it.
      await pool.query(
        "UPDATE time_entries SET started_at = '2026-03-01 09:00:00.123456+00' WHERE id = $1",
        [ids.entry1],
      );
      await until(async () => (await health()).status === 200);
      expect((await health()).body).toMatchObject({ status: 'ok', sync: { failure: null } });
      expect((await get('/metrics')).body).toMatch(/^ledgerline_sync_stalled 0$/m);

      // The reads that waited now show the write: the writer's, and the position's.
      for (const read of [
        await listClients(OWNER_TOKEN),
        await listClients(TOKENS.admin, { 'x-data-position': position }),
      ]) {
        expect(read.status).toBe(200);
        expect((read.body.data as Body[]).map((c) => c.name as string)).toContain(name);
      }
      // The retried write still gets its stored 201, and the client exists once on both sides.
      const replay = await createClient(name, key);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(await sync.waitForStore()).toBe(true);
      const { store, readModel: copy } = await snapshotBoth(pool, duck);
      for (const table of Object.keys(store)) expect(copy[table], table).toEqual(store[table]);
      expect(store.clients!.filter((row) => row.includes(name))).toHaveLength(1);
      expect(store.clients!.some((row) => row.includes(`${mode}: with the bad row`))).toBe(true);
      // Writes and reads go on as before.
      expect((await createClient(`After (${mode})`, `after-${mode}`)).status).toBe(201);
      const after = await listClients(OWNER_TOKEN);
      expect((after.body.data as Body[]).map((c) => c.name as string)).toContain(`After (${mode})`);
    } finally {
      await app?.close();
      await sync.stop();
      duck.closeSync();
      readModel.close();
    }
  };

  it('in replication mode', async () => {
    await scenario(pool, 'replication');
  });

  it('a first load names the row it cannot load', async () => {
    await pool.query(
      "UPDATE time_entries SET started_at = '0001-01-01 09:00:00+00 BC' WHERE id = $1",
      [ids.entry2],
    );
    const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    try {
      await expect(fullSync(pool, readModel, DERIVED_TABLES)).rejects.toThrow(
        new RegExp(`time_entries id=${ids.entry2}: its started_at "0001-01-01 09:00:00\\+00 BC"`),
      );
    } finally {
      readModel.close();
      await pool.query(
        "UPDATE time_entries SET started_at = '2026-03-02 09:00:00+00' WHERE id = $1",
        [ids.entry2],
      );
    }
  });

  it('in change-log mode', async () => {
    const restricted = createPool(await restrictedRoleUrl(db.url));
    try {
      await scenario(restricted, 'change-log');
    } finally {
      await restricted.end();
    }
  });
});
