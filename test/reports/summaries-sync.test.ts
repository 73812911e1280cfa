import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { generatedWorkspace } from '../support/generated-workspaces.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { factsBoth, rowsOf, SUMMARY_MACROS } from '../support/summary-macros.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import {
  loadWriteTargets,
  summaryWrite,
  writeTransactions,
  type WriteTargets,
} from '../support/summary-writes.ts';

// Every summary the sync keeps (src/reports/team-payouts/team-payouts.derived.ts and
// src/reports/profitability/profitability.derived.ts) must equal, row for row, the macro it is
// refreshed from, whatever is written: writes to every table a summary reads (entries,
// payees, rates, bills and lines, invoices and lines, payments and allocations, FX rates, the
// base currency), in random mixes (test/support/summary-writes.ts), then a comparison once the
// sync has caught up.

describe.each(['replication', 'change-log'] as const)('summaries kept by the %s sync', (mode) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;
  let sync: SyncService;
  let syncPool: pg.Pool;
  let ids: WriteTargets;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = mode === 'change-log' ? await restrictedRoleUrl(database.url) : database.url;
    pool = createPool(database.url);
    await generatedWorkspace(pool, { seed: 11, timeEntries: 160, members: 6, clients: 4 });
    ids = await loadWriteTargets(pool);
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
    syncPool = mode === 'change-log' ? createPool(url) : pool;
    sync = new SyncService({
      pool: syncPool,
      url,
      readModel,
      derived: DERIVED_TABLES,
      status: new ReadModelStatus(),
    });
    await sync.start();
    expect(sync.metrics.mode).toBe(mode);
  });
  afterAll(async () => {
    await sync.stop();
    duck.closeSync();
    readModel.close();
    await dropIdleSlots(pool);
    if (syncPool !== pool) await syncPool.end();
    await pool.end();
    await database.drop();
  });

  const expectSummariesEqual = async () => {
    const [kept, computed] = await factsBoth(duck);
    expect(kept, 'profitability_facts').toEqual(computed);
    for (const [summary, macro] of SUMMARY_MACROS)
      expect(await rowsOf(duck, summary), summary).toEqual(await rowsOf(duck, macro));
  };

  it('are equal to their macros after the first load', async () => {
    await expectSummariesEqual();
    const payable = await rowsOf(duck, 'SELECT * FROM payee_entry_pay');
    expect(payable.length).toBeGreaterThan(0);
    expect((await factsBoth(duck))[0].length).toBeGreaterThan(0);
  });

  it('leave the first load facts in entry-date order in storage', async () => {
    // A report's range of days reads a few row groups (rebuildProfitabilityTables).
    const keys = 'workspace_id, entry_date';
    const stored = await duck.runAndReadAll(
      `SELECT CAST(row(${keys}) AS VARCHAR) FROM profitability_facts ORDER BY rowid`,
    );
    const sorted = await duck.runAndReadAll(
      `SELECT CAST(row(${keys}) AS VARCHAR) FROM profitability_facts ORDER BY ${keys}`,
    );
    expect(stored.getRows().length).toBeGreaterThan(10);
    expect(stored.getRows()).toEqual(sorted.getRows());
  });

  it("follow a payment allocated to an approved bill (its lines' paid share)", async () => {
    const { rows } = await pool.query<{ payment: string; bill: string }>(
      `SELECT p.id AS payment, b.id AS bill
       FROM team_bills b JOIN team_payments p ON p.payee_id = b.payee_id AND p.currency = b.currency
       WHERE b.status = 'APPROVED' AND b.deleted_at IS NULL AND p.status = 'RECORDED'
         AND p.deleted_at IS NULL
         AND EXISTS (SELECT 1 FROM team_bill_lines l JOIN time_entries e ON e.id = l.time_entry_id
                     WHERE l.bill_id = b.id AND l.kind = 'TIME' AND e.deleted_at IS NULL
                       AND NOT e.is_running)
         AND NOT EXISTS (SELECT 1 FROM team_payment_allocations a WHERE a.bill_id = b.id)
       LIMIT 1`,
    );
    expect(rows.length).toBe(1);
    const before = (await factsBoth(duck))[0];
    await pool.query(
      `INSERT INTO team_payment_allocations (workspace_id, payment_id, bill_id, amount, position)
       SELECT workspace_id, id, $2, 1, 99 FROM team_payments WHERE id = $1`,
      [rows[0]!.payment, rows[0]!.bill],
    );
    await sync.waitForStore();
    const [kept, computed] = await factsBoth(duck);
    expect(computed).not.toEqual(before);
    expect(kept).toEqual(computed);
    await expectSummariesEqual();
  });

  it('stay equal through random writes to entries, payees, rates, bills and lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(summaryWrite, { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 5,
        }),
        async (transactions) => {
          await writeTransactions(pool, ids, transactions);
          await sync.waitForStore();
          await expectSummariesEqual();
        },
      ),
      { numRuns: 12 },
    );
  }, 240_000);
});
