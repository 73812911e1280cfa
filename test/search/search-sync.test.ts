import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { rebuildSearchIndex } from '../../src/search/search-index.ts';
import { searchQuery, type SearchEntity } from '../../src/search/search.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { searchIndexPart } from '../../src/search/search.derived.ts';

import {
  client,
  id,
  indexContent,
  invoice,
  line,
  project,
  searchedTableChange,
  searchSyncSnapshot,
  user,
  W,
} from '../support/search-sync-workspace.ts';

// The search index the sync keeps (src/search/search.derived.ts) through client renames,
// members, users, invoice lines, transactions across tables, soft deletes and random
// transactions, each time equal to a rebuild: by logical replication refreshed in process, by
// logical replication always refreshed by SQL, and by the change log (docs/search.md).

/**
 * Runs the sync tests against a store the sync follows by replication, or by change log, the
 * touched records refreshed in process (search-refresh.ts) up to its bound, or always by SQL.
 */
function syncSuite(mode: 'replication' | 'change-log', refresh: 'in-process' | 'sql') {
  const refreshes = { 'in-process': 0, sql: 0 };
  const search = searchIndexPart({
    ...(refresh === 'sql' ? { inProcessUpTo: 0 } : {}),
    onRefresh: (how) => refreshes[how]++,
  });
  const derived = DERIVED_TABLES.map((part) => (part.name === 'search' ? search : part));
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let url: string;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;
  let sync: SyncService;

  const caughtUp = async () => {
    const { rows } = await pool.query<{ lsn: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    await sync.waitFor(mode === 'replication' ? rows[0]!.lsn : '0/0');
  };
  const names = async (entity: SearchEntity, text: string) => {
    const query = searchQuery(entity, W, text)!;
    const [table, label] = {
      client: ['clients', 'name'],
      project: ['projects', 'name'],
      invoice: ['invoices', 'number'],
    }[entity];
    const reader = await duck.runAndReadAll(
      `WITH search AS (${query.sql})
       SELECT t.${label} FROM ${table} t JOIN search s ON s.record_id = t.id
       WHERE t.deleted_at IS NULL ORDER BY s.rank, t.${label}`,
      query.params,
    );
    return reader.getRows().map(([name]) => name as string);
  };
  /** The index the sync maintained equals one built from scratch from the same rows. */
  const expectIndexEqualToRebuild = async () => {
    const maintained = await indexContent(duck);
    await duck.run('BEGIN TRANSACTION');
    try {
      await rebuildSearchIndex(duck);
      expect(maintained).toEqual(await indexContent(duck));
    } finally {
      await duck.run('ROLLBACK');
    }
    expect(maintained.duplicates).toEqual(['0 | 0 | 0 | 0']);
    expect(maintained.clientNamesOff).toEqual(['0']);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    url = mode === 'replication' ? db.url : await restrictedRoleUrl(db.url);
    pool = createPool(url);
    await importObject(pool, searchSyncSnapshot);
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
    sync = new SyncService({
      pool,
      url,
      readModel,
      derived,
      status: new ReadModelStatus(),
    });
    await sync.start();
    expect(sync.metrics.mode).toBe(mode);
  });
  afterAll(async () => {
    await sync.stop();
    if (mode === 'replication') await dropIdleSlots(pool);
    duck.closeSync();
    readModel.close();
    await pool.end();
    await db.drop();
  });

  it('builds the index with the first load', async () => {
    expect(await names('project', 'globex')).toEqual(['Website relaunch']);
    expect(await names('invoice', 'initech')).toEqual(['INV-0002']);
    await expectIndexEqualToRebuild();
  });

  it('a client rename reaches its projects and invoices: found by the new name, not the old', async () => {
    await pool.query("UPDATE clients SET name = 'Initrode Systems' WHERE id = $1", [client(1)]);
    await caughtUp();
    expect(await names('client', 'initrode')).toEqual(['Initrode Systems']);
    expect(await names('project', 'initrode')).toEqual(['Website relaunch']);
    expect(await names('invoice', 'initrode systems')).toEqual(['INV-0001']);
    expect(await names('client', 'globex')).toEqual([]);
    expect(await names('project', 'globex')).toEqual([]);
    expect(await names('invoice', 'globex')).toEqual([]);
    await expectIndexEqualToRebuild();
  });

  it("a project or invoice given another client, or a project added, in a batch of its own carries that client's name", async () => {
    const clientNames = async () =>
      (
        await duck.runAndReadAll(
          `SELECT client_name_lower FROM projects WHERE id = '${project(1)}'
           UNION ALL SELECT client_name_lower FROM invoices WHERE id = '${invoice(1)}'
           UNION ALL SELECT client_name_lower FROM projects WHERE id = '${project(9)}'`,
        )
      ).getRows();
    for (const [to, name] of [
      [client(2), 'initech'],
      [client(1), 'initrode systems'],
    ] as const) {
      await pool.query('UPDATE projects SET client_id = $2 WHERE id = $1', [project(1), to]);
      await caughtUp();
      await pool.query('UPDATE invoices SET client_id = $2 WHERE id = $1', [invoice(1), to]);
      await caughtUp();
      await pool.query(
        "INSERT INTO projects (id, workspace_id, client_id, name) VALUES ($1, $2, $3, 'Solo')",
        [project(9), W, to],
      );
      await caughtUp();
      expect(await clientNames()).toEqual([[name], [name], [name]]);
      await expectIndexEqualToRebuild();
      await pool.query('DELETE FROM projects WHERE id = $1', [project(9)]);
      await caughtUp();
    }
  });

  it('project members: added, renamed and removed users change their projects', async () => {
    await pool.query(
      'INSERT INTO project_members (workspace_id, project_id, user_id) VALUES ($1, $2, $3)',
      [W, project(2), user(3)],
    );
    await caughtUp();
    expect(await names('project', 'torvalds')).toEqual(['Brand refresh']);

    await pool.query(
      "UPDATE users SET name = 'Linus Benedict' WHERE workspace_id = $1 AND id = $2",
      [W, user(3)],
    );
    await caughtUp();
    expect(await names('project', 'benedict')).toEqual(['Brand refresh']);
    expect(await names('project', 'torvalds')).toEqual([]);

    await pool.query('DELETE FROM project_members WHERE project_id = $1 AND user_id = $2', [
      project(2),
      user(3),
    ]);
    await caughtUp();
    expect(await names('project', 'benedict')).toEqual([]);
    expect(await names('project', 'hopper')).toEqual(['Brand refresh']);
    await expectIndexEqualToRebuild();
  });

  it('invoice lines: added, edited, moved to another invoice and deleted change their invoices', async () => {
    await pool.query(
      `INSERT INTO invoice_lines (id, workspace_id, invoice_id, position, kind, description, amount)
       VALUES ($1, $2, $3, 2, 'OTHER', 'Penetration test', 5)`,
      [line(3), W, invoice(2)],
    );
    await pool.query("UPDATE invoice_lines SET description = 'Hosting retainer' WHERE id = $1", [
      line(1),
    ]);
    await caughtUp();
    expect(await names('invoice', 'penetration')).toEqual(['INV-0002']);
    expect(await names('invoice', 'hosting')).toEqual(['INV-0001']);
    expect(await names('invoice', 'sprint')).toEqual([]);

    // A line moved: the invoice it left is known only from the line as it was.
    await pool.query('UPDATE invoice_lines SET invoice_id = $2 WHERE id = $1', [
      line(3),
      invoice(1),
    ]);
    await caughtUp();
    expect(await names('invoice', 'penetration')).toEqual(['INV-0001']);

    // A deleted line: its change carries only its id.
    await pool.query('DELETE FROM invoice_lines WHERE id = $1', [line(1)]);
    await caughtUp();
    expect(await names('invoice', 'hosting')).toEqual([]);
    await expectIndexEqualToRebuild();
  });

  it('records created and deleted in one transaction across tables, and a project moved to another client', async () => {
    const tx = await pool.connect();
    try {
      await tx.query('BEGIN');
      await tx.query(
        "INSERT INTO clients (id, workspace_id, name) VALUES ($1, $2, 'Umbrella Health')",
        [client(3), W],
      );
      await tx.query(
        "INSERT INTO projects (id, workspace_id, client_id, name) VALUES ($1, $2, $3, 'Vaccine portal')",
        [project(3), W, client(3)],
      );
      await tx.query(
        'INSERT INTO project_members (workspace_id, project_id, user_id) VALUES ($1, $2, $3)',
        [W, project(3), user(1)],
      );
      await tx.query('UPDATE projects SET client_id = $2 WHERE id = $1', [project(2), client(3)]);
      await tx.query('DELETE FROM invoices WHERE id = $1', [invoice(2)]);
      await tx.query('COMMIT');
    } finally {
      tx.release();
    }
    await caughtUp();
    expect(await names('project', 'umbrella')).toEqual(['Brand refresh', 'Vaccine portal']);
    expect(await names('project', 'umbrella lovelace')).toEqual(['Vaccine portal']);
    expect(await names('project', 'initech')).toEqual([]);
    expect(await names('invoice', 'initech')).toEqual([]);
    expect(await names('invoice', 'inv')).toEqual(['INV-0001']);
    await expectIndexEqualToRebuild();
  });

  it('a soft delete keeps the record in the index; the caller filters it', async () => {
    await pool.query('UPDATE clients SET deleted_at = now() WHERE id = $1', [client(2)]);
    await caughtUp();
    expect(await names('client', 'initech')).toEqual([]);
    const query = searchQuery('client', W, 'initech')!;
    const found = await duck.runAndReadAll(`SELECT count(*) FROM (${query.sql})`, query.params);
    expect(found.getRows()[0]![0]).toBe(1n);
    await expectIndexEqualToRebuild();
  });

  it('ends equal to a rebuild after random transactions over the searched tables', async () => {
    const runs = fc.sample(
      fc.array(fc.array(searchedTableChange, { minLength: 1, maxLength: 6 }), {
        minLength: 3,
        maxLength: 6,
      }),
      { seed: mode === 'replication' ? 11 : 12, numRuns: 4 },
    );
    for (const transactions of runs) {
      for (const statements of transactions) {
        const tx = await pool.connect();
        try {
          await tx.query('BEGIN');
          for (const [sql, params] of statements) await tx.query(sql, params);
          await tx.query('COMMIT');
        } finally {
          tx.release();
        }
      }
      await caughtUp();
      await expectIndexEqualToRebuild();
    }
    expect(refreshes[refresh]).toBeGreaterThan(0);
    expect(refreshes[refresh === 'sql' ? 'in-process' : 'sql']).toBe(0);
  });

  it('a batch of other tables leaves the index as it was', async () => {
    const before = await indexContent(duck);
    await pool.query('UPDATE time_entries SET duration_seconds = 7200 WHERE id = $1', [id(6, 1)]);
    await pool.query("UPDATE clients SET currency = 'USD' WHERE id = $1", [client(1)]);
    await caughtUp();
    expect(await indexContent(duck)).toEqual(before);
  });
}

describe('search index maintenance by the sync (logical replication)', () => {
  syncSuite('replication', 'in-process');
});

describe('search index maintenance by the sync (logical replication, refreshed by SQL)', () => {
  syncSuite('replication', 'sql');
});

describe('search index maintenance by the sync (change log)', () => {
  syncSuite('change-log', 'in-process');
});
