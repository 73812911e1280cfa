import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/**
 * Random sequences of writes over many tables, some in transactions that stay open while
 * others commit (and so commit late, out of start order), interleaved with syncs and sync
 * restarts. After a final catch-up, every read-model table equals its PostgreSQL table.
 */

const USERS = [ids.owner, ids.member, ids.admin, ids.manager];
const PROJECTS = [ids.project, '40000000-0000-4000-8000-000000000002'];
const entryId = (n: number) => `e0000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;
const clientId = (n: number) => `c1000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;
const fxId = (n: number) => `f0000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;

type Write =
  | {
      kind: 'insertEntry';
      n: number;
      user: number;
      project: number;
      month: number;
      seconds: number;
    }
  | { kind: 'moveEntry'; n: number; user: number; project: number; month: number }
  | { kind: 'deleteEntry'; n: number }
  | { kind: 'reinsertEntry'; n: number; seconds: number }
  | { kind: 'upsertClient'; n: number; notes: string }
  | { kind: 'deleteClient'; n: number }
  | { kind: 'upsertFx'; n: number; rate: number }
  | { kind: 'deleteFx'; n: number }
  | { kind: 'tagTask'; tags: string[] };

type Step =
  | { kind: 'write'; write: Write }
  | { kind: 'transaction'; writes: Write[] }
  | { kind: 'openLate'; slot: number; writes: Write[] }
  | { kind: 'commitLate'; slot: number }
  | { kind: 'sync' }
  | { kind: 'restart' };

// Autocommit writes use ids 0-29; late transaction `slot` uses 100 + 10 * slot + 0-9, so an
// open transaction never holds a row another step waits for.
const writeArb = (base: number): fc.Arbitrary<Write> =>
  fc.oneof(
    fc.record({
      kind: fc.constant('insertEntry' as const),
      n: fc.integer({ min: base, max: base + 9 }),
      user: fc.nat(3),
      project: fc.nat(1),
      month: fc.integer({ min: 1, max: 12 }),
      seconds: fc.integer({ min: 0, max: 36_000 }),
    }),
    fc.record({
      kind: fc.constant('moveEntry' as const),
      n: fc.integer({ min: base, max: base + 9 }),
      user: fc.nat(3),
      project: fc.nat(1),
      month: fc.integer({ min: 1, max: 12 }),
    }),
    fc.record({
      kind: fc.constant('deleteEntry' as const),
      n: fc.integer({ min: base, max: base + 9 }),
    }),
    fc.record({
      kind: fc.constant('reinsertEntry' as const),
      n: fc.integer({ min: base, max: base + 9 }),
      seconds: fc.integer({ min: 1, max: 999 }),
    }),
    fc.record({
      kind: fc.constant('upsertClient' as const),
      n: fc.integer({ min: base, max: base + 9 }),
      notes: fc.string({ maxLength: 12 }),
    }),
    fc.record({
      kind: fc.constant('deleteClient' as const),
      n: fc.integer({ min: base, max: base + 9 }),
    }),
    fc.record({
      kind: fc.constant('upsertFx' as const),
      n: fc.integer({ min: base, max: base + 9 }),
      rate: fc.integer({ min: 1, max: 99_999 }),
    }),
    fc.record({
      kind: fc.constant('deleteFx' as const),
      n: fc.integer({ min: base, max: base + 9 }),
    }),
    ...(base === 0
      ? [
          fc.record({
            kind: fc.constant('tagTask' as const),
            tags: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
          }),
        ]
      : []),
  );

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: writeArb(0).map((write) => ({ kind: 'write' as const, write })) },
  {
    weight: 2,
    arbitrary: fc
      .array(writeArb(10), { minLength: 1, maxLength: 5 })
      .map((writes) => ({ kind: 'transaction' as const, writes })),
  },
  {
    weight: 2,
    arbitrary: fc
      .nat(2)
      .chain((slot) =>
        fc
          .array(writeArb(100 + 10 * slot), { minLength: 1, maxLength: 4 })
          .map((writes) => ({ kind: 'openLate' as const, slot, writes })),
      ),
  },
  { weight: 2, arbitrary: fc.nat(2).map((slot) => ({ kind: 'commitLate' as const, slot })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'sync' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

async function apply(client: pg.ClientBase, w: Write): Promise<void> {
  const ws = ids.workspace;
  switch (w.kind) {
    case 'insertEntry':
      await client.query(
        `INSERT INTO time_entries (id, workspace_id, user_id, project_id, entry_date, duration_seconds, note)
         VALUES ($1, $2, $3, $4, make_date(2026, $5, 1), $6, 'random') ON CONFLICT (id) DO NOTHING`,
        [entryId(w.n), ws, USERS[w.user], PROJECTS[w.project], w.month, w.seconds],
      );
      return;
    case 'moveEntry':
      await client.query(
        'UPDATE time_entries SET user_id = $2, project_id = $3, entry_date = make_date(2026, $4, 15), updated_at = now() WHERE id = $1',
        [entryId(w.n), USERS[w.user], PROJECTS[w.project], w.month],
      );
      return;
    case 'deleteEntry':
      await client.query('DELETE FROM time_entries WHERE id = $1', [entryId(w.n)]);
      return;
    case 'reinsertEntry':
      await client.query('DELETE FROM time_entries WHERE id = $1', [entryId(w.n)]);
      await client.query(
        "INSERT INTO time_entries (id, workspace_id, user_id, project_id, entry_date, duration_seconds, note) VALUES ($1, $2, $3, $4, '2026-06-30', $5, 'again')",
        [entryId(w.n), ws, ids.owner, ids.project, w.seconds],
      );
      return;
    case 'upsertClient':
      await client.query(
        `INSERT INTO clients (id, workspace_id, name, notes, currency, default_rate) VALUES ($1, $2, 'Random client', $3, 'GBP', 99.5)
         ON CONFLICT (id) DO UPDATE SET notes = EXCLUDED.notes, updated_at = now()`,
        [clientId(w.n), ws, w.notes],
      );
      return;
    case 'deleteClient':
      await client.query('DELETE FROM clients WHERE id = $1', [clientId(w.n)]);
      return;
    case 'upsertFx':
      await client.query(
        `INSERT INTO fx_rates (id, workspace_id, from_currency, to_currency, effective_from, rate)
         VALUES ($1, $2, 'JPY', 'EUR', make_date(2025, 1, 1) + $4::int, $3::numeric / 10000)
         ON CONFLICT (id) DO UPDATE SET rate = EXCLUDED.rate`,
        [fxId(w.n), ws, w.rate, w.n],
      );
      return;
    case 'deleteFx':
      await client.query('DELETE FROM fx_rates WHERE id = $1', [fxId(w.n)]);
      return;
    case 'tagTask':
      await client.query('UPDATE tasks SET tags = $2 WHERE id = $1', [ids.task, w.tags]);
      return;
  }
}

describe.each(['replication', 'change-log'] as const)(
  'sync property (%s): any interleaving of writes, late commits, syncs and restarts',
  (mode) => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let url: string;
    let pool: pg.Pool;
    let readModel: ReadModel;
    let duck: DuckDBConnection;
    let sync: SyncService;
    const status = new ReadModelStatus();

    const insertLsn = async () =>
      (await pool.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn'))
        .rows[0]!.lsn;
    const startSync = async () => {
      sync = new SyncService({
        pool,
        url,
        readModel,
        derived: DERIVED_TABLES,
        status,
        flushRows: 3,
      });
      await sync.start();
    };

    beforeAll(async () => {
      db = await createTestDatabase();
      url = mode === 'replication' ? db.url : await restrictedRoleUrl(db.url);
      pool = createPool(url, 20);
      const snapshot = smallSnapshot();
      snapshot.projects.push({ ...snapshot.projects[0]!, id: PROJECTS[1]!, name: 'Second' });
      await importObject(pool, snapshot);
      readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
      duck = await readModel.connect();
      await startSync();
    });
    afterAll(async () => {
      await sync.stop();
      await dropIdleSlots(pool);
      duck.closeSync();
      readModel.close();
      await pool.end();
      await db.drop();
    });

    it('ends with every read-model table equal to its PostgreSQL table', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 30 }), async (steps) => {
          const late = new Map<number, pg.PoolClient>();
          try {
            for (const step of steps) {
              switch (step.kind) {
                case 'write':
                  await apply(pool as unknown as pg.ClientBase, step.write);
                  break;
                case 'transaction': {
                  const client = await pool.connect();
                  try {
                    await client.query('BEGIN');
                    for (const w of step.writes) await apply(client, w);
                    await client.query('COMMIT');
                  } finally {
                    client.release();
                  }
                  break;
                }
                case 'openLate':
                  if (late.has(step.slot)) break;
                  late.set(step.slot, await pool.connect());
                  await late.get(step.slot)!.query('BEGIN');
                  for (const w of step.writes) await apply(late.get(step.slot)!, w);
                  break;
                case 'commitLate': {
                  const client = late.get(step.slot);
                  if (!client) break;
                  await client.query('COMMIT');
                  client.release();
                  late.delete(step.slot);
                  break;
                }
                case 'sync':
                  await sync.waitFor(await insertLsn());
                  break;
                case 'restart':
                  await sync.stop();
                  await startSync();
                  break;
              }
            }
          } finally {
            for (const client of late.values()) {
              await client.query('COMMIT');
              client.release();
            }
          }
          await sync.waitFor(await insertLsn());
          const { store, readModel: copy } = await snapshotBoth(pool, duck);
          expect(copy).toEqual(store);
        }),
        { numRuns: 10 },
      );
      // Ten random runs of up to 30 steps took 12-40 s alone and over 60 s on a loaded
      // machine; a test abandoned at its timeout would go on writing under afterAll.
    }, 300_000);
  },
);
