import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { RecordCache } from '../../src/readmodel/record-cache.ts';
import { SqlParams } from '../../src/readmodel/sql-params.ts';
import { createKysely, createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { apiRequest, type Body } from '../support/api-request.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

const list = { name: 'clients', table: 'clients' };
const row = (id: string, name: string) => ({ id, name });

describe('the record cache', () => {
  it('serves rows it has read, and reads only the missing ones', async () => {
    const cache = new RecordCache(new ReadModelStatus());
    const asked: string[][] = [];
    const fetch = async (missing: string[]) => {
      asked.push(missing);
      return missing.map((id) => row(id, `name ${id}`));
    };
    await cache.rows(list, ['a', 'b'], fetch);
    const rows = await cache.rows(list, ['b', 'c'], fetch);
    expect(asked).toEqual([['a', 'b'], ['c']]);
    expect([...rows.keys()]).toEqual(['b', 'c']);
  });

  it('drops a changed id, a list whose dependency changed, and everything on a reload', async () => {
    const status = new ReadModelStatus();
    const cache = new RecordCache(status);
    const projects = { name: 'projects', table: 'projects', dependsOn: ['clients'] };
    const fetch = async (missing: string[]) => missing.map((id) => row(id, id));
    await cache.rows(list, ['a', 'b'], fetch);
    await cache.rows(projects, ['p'], fetch);
    status.committed(new Date(), new Map([['clients', new Set(['a'])]]));
    expect([cache.size('clients'), cache.size('projects')]).toEqual([1, 0]);
    await cache.rows(projects, ['p'], fetch);
    status.committed(new Date(), new Map([['time_entries', null]]));
    expect([cache.size('clients'), cache.size('projects')]).toEqual([1, 1]);
    status.committed(new Date(), new Map([['clients', null]]));
    expect(cache.size('clients')).toBe(0);
    await cache.rows(list, ['a'], fetch);
    status.committed(new Date(), 'everything');
    expect([cache.size('clients'), cache.size('projects')]).toEqual([0, 0]);
  });

  it.each(['clients', 'projects', 'invoices'])(
    'reads the %s rows it lacks through the id index, not a scan of every id',
    async (table) => {
      const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
      const duck = await readModel.connect();
      try {
        // 3,000 rows, every required column filled with a value of its type.
        const columns = await duck.runAndReadAll(
          `SELECT column_name, data_type FROM information_schema.columns
           WHERE table_name = '${table}' AND is_nullable = 'NO' ORDER BY ordinal_position`,
        );
        const valueOfType: [RegExp, (type: string) => string][] = [
          [/UUID/, () => 'uuid()'],
          [/TIMESTAMP|DATE/, (type) => `CAST(now() AS ${type})`],
          [/BOOL/, () => 'false'],
          [/CHAR/, () => "'x'"],
          [/./, (type) => `CAST(0 AS ${type})`],
        ];
        const values = columns.getRows().map(([name, type]) => {
          const [, value] = valueOfType.find(([pattern]) => pattern.test(String(type)))!;
          return `${value(String(type))} AS ${String(name)}`;
        });
        await duck.run(`INSERT INTO ${table} BY NAME SELECT ${values.join(', ')} FROM range(3000)`);
        const found = await duck.runAndReadAll(`SELECT CAST(id AS VARCHAR) FROM ${table} LIMIT 51`);
        const ids = found.getRows().map(([id]) => String(id));
        // The statement keyset.ts reads missing rows with.
        const params = new SqlParams();
        const plan = await duck.runAndReadAll(
          `EXPLAIN ANALYZE SELECT r.* FROM ${table} r WHERE ${params.in('r.id', ids, 'UUID')}`,
        );
        expect(String(plan.getRows()[0]![1])).toContain('Index Scan');
      } finally {
        duck.closeSync();
        readModel.close();
      }
    },
  );

  it('does not keep a row read while a commit dropped it', async () => {
    const status = new ReadModelStatus();
    const cache = new RecordCache(status);
    let reads = 0;
    const staleRead = async (missing: string[]) => {
      reads++;
      // The read saw the row before the commit that changed it was reported.
      status.committed(new Date(), new Map([['clients', new Set(['a'])]]));
      return missing.map((id) => row(id, 'old'));
    };
    expect((await cache.rows(list, ['a'], staleRead)).get('a')).toEqual(row('a', 'old'));
    const fresh = await cache.rows(list, ['a'], async (missing) => {
      reads++;
      return missing.map((id) => row(id, 'new'));
    });
    expect(fresh.get('a')).toEqual(row('a', 'new'));
    expect(reads).toBe(2);
  });

  it('keeps at most rowsPerList rows, dropping the least recently used', async () => {
    const cache = new RecordCache(new ReadModelStatus(), 2);
    const asked: string[][] = [];
    const fetch = async (missing: string[]) => {
      asked.push(missing);
      return missing.map((id) => row(id, id));
    };
    await cache.rows(list, ['a', 'b'], fetch);
    await cache.rows(list, ['a'], fetch);
    await cache.rows(list, ['c'], fetch);
    expect(cache.size('clients')).toBe(2);
    await cache.rows(list, ['a', 'c'], fetch);
    await cache.rows(list, ['b'], fetch);
    expect(asked).toEqual([['a', 'b'], ['c'], ['b']]);
  });

  it('keeps no row with rowsPerList 0 (RECORD_CACHE_ROWS=0), and still answers', async () => {
    const cache = new RecordCache(new ReadModelStatus(), 0);
    let reads = 0;
    const fetch = async (missing: string[]) => {
      reads++;
      return missing.map((id) => row(id, id));
    };
    for (let i = 0; i < 2; i++) {
      const rows = await cache.rows(list, ['a', 'b'], fetch);
      expect([...rows.keys()]).toEqual(['a', 'b']);
    }
    expect(reads).toBe(2);
    expect(cache.size('clients')).toBe(0);
  });
});

// Lists read through the cache stay current with the sync, in both of its modes: a row
// listed once, then changed in PostgreSQL behind the API's back, is listed changed.
describe.each(['replication', 'change-log'] as const)('cached list pages, %s sync', (mode) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let sync: SyncService;
  let app: FastifyInstance;
  const get = async (path: string) =>
    (await apiRequest(app, { method: 'GET', path, token: TOKENS.owner })).body.data as Body[];

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = mode === 'change-log' ? await restrictedRoleUrl(database.url) : database.url;
    pool = createPool(url);
    await importObject(pool, smallSnapshot());
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    const status = new ReadModelStatus();
    sync = new SyncService({ pool, url, readModel, derived: DERIVED_TABLES, status });
    app = await buildApp({ db: createKysely(pool), readModel, status, tokenEnv: 'test', sync });
    await sync.start();
    expect(sync.metrics.mode).toBe(mode);
  });
  afterAll(async () => {
    await app.close();
    await sync.stop();
    await dropIdleSlots(pool);
    await pool.end();
    readModel.close();
    await database.drop();
  });

  it('lists a client changed after its page was read', async () => {
    expect((await get('/clients')).map((c) => c.name as string)).toEqual(['Globex']);
    await pool.query("UPDATE clients SET name = 'Globex Corp', updated_at = now() WHERE id = $1", [
      ids.client,
    ]);
    await sync.waitForStore();
    expect((await get('/clients')).map((c) => c.name as string)).toEqual(['Globex Corp']);
  });

  it("formats a project's rates in its client's new currency", async () => {
    expect((await get('/projects'))[0]).toMatchObject({ id: ids.project, hourlyRate: '120.00' });
    await pool.query("UPDATE clients SET currency = 'JPY' WHERE id = $1", [ids.client]);
    await sync.waitForStore();
    expect((await get('/projects'))[0]).toMatchObject({ id: ids.project, hourlyRate: '120' });
  });

  it('lists unpaid time whose entry, payee, rate, project or task changed', async () => {
    const item = async () =>
      (await get('/team-payouts/unpaid-time?scope=all')).find((i) => i.id === ids.entry2);
    expect(await item()).toMatchObject({ name: 'Max Member', hourlyRate: '45.00' });
    const changes: [string, unknown[], Record<string, unknown>][] = [
      [
        "UPDATE time_entries SET note = 'reviewed' WHERE id = $1",
        [ids.entry2],
        { description: 'reviewed' },
      ],
      ["UPDATE payees SET name = 'Max M.' WHERE id = $1", [ids.payee], { name: 'Max M.' }],
      [
        'UPDATE payee_rates SET hourly_rate = 50 WHERE id = $1',
        [ids.rate],
        { hourlyRate: '50.00' },
      ],
      ["UPDATE projects SET name = 'Site' WHERE id = $1", [ids.project], { projectName: 'Site' }],
      [
        'UPDATE time_entries SET task_id = $2 WHERE id = $1',
        [ids.entry2, ids.task],
        { taskId: ids.task },
      ],
      ["UPDATE tasks SET name = 'Layout' WHERE id = $1", [ids.task], { taskName: 'Layout' }],
    ];
    for (const [sql, values, expected] of changes) {
      await pool.query(sql, values);
      await sync.waitForStore();
      expect(await item()).toMatchObject(expected);
    }
  });

  it('lists an invoice changed after its page was read', async () => {
    expect((await get('/invoices'))[0]).toMatchObject({ id: ids.invoice });
    await pool.query("UPDATE invoices SET notes = 'paid by wire' WHERE id = $1", [ids.invoice]);
    await sync.waitForStore();
    expect((await get('/invoices'))[0]).toMatchObject({ id: ids.invoice, notes: 'paid by wire' });
  });
});
