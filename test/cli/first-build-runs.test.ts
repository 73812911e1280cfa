import type { DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { entryMonthRuns } from '../../src/readmodel/entry-month-runs.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { rebuildProfitabilityTables } from '../../src/reports/profitability/profitability.derived.ts';
import { rebuildTeamPayoutTables } from '../../src/reports/team-payouts/team-payouts.derived.ts';
import { createPool } from '../../src/store/database.ts';
import { fullSync } from '../../src/sync/full-sync.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { generatedWorkspace } from '../support/generated-workspaces.ts';
import { factsBoth, rowsOf, SUMMARY_MACROS } from '../support/summary-macros.ts';

// A first build fills the derived tables a run of months at a time (src/readmodel/
// entry-month-runs.ts): the priced facts by runs of one workspace's months, the payable rows by
// runs of every workspace's. Built in runs of a few entries, many runs per workspace, every
// summary must equal its macro over all the entries at once, as a build in one run does.

describe('a first build in runs of months', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createPool(database.url);
    await generatedWorkspace(pool, { seed: 41, timeEntries: 180, members: 5, clients: 4 });
    await generatedWorkspace(pool, { seed: 42, timeEntries: 140, members: 4, clients: 3 });
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    await fullSync(pool, readModel, DERIVED_TABLES);
    duck = await readModel.connect();
  });
  afterAll(async () => {
    duck.closeSync();
    readModel.close();
    await dropIdleSlots(pool);
    await pool.end();
    await database.drop();
  });

  /** Every summary as stored, by name, and as its macro computes it (factsBoth: the facts). */
  const summaries = async () => {
    const [facts, computed] = await factsBoth(duck);
    const stored: Record<string, string[]> = { profitability_facts: facts };
    const macros: Record<string, string[]> = { profitability_facts: computed };
    for (const [summary, macro] of SUMMARY_MACROS) {
      stored[summary] = await rowsOf(duck, summary);
      macros[summary] = await rowsOf(duck, macro);
    }
    return { stored, macros };
  };
  const stored = async () => {
    const rows: Record<string, string[]> = {
      profitability_facts: await rowsOf(duck, 'SELECT * FROM profitability_facts'),
    };
    for (const [summary] of SUMMARY_MACROS) rows[summary] = await rowsOf(duck, summary);
    return rows;
  };

  it('cuts the entries into runs of consecutive months, each within its size unless one month is more', async () => {
    const months = (
      await duck.runAndReadAll(
        `SELECT CAST(workspace_id AS VARCHAR), CAST(entry_month(entry_date) AS VARCHAR), count(*)
         FROM time_entries GROUP BY ALL`,
      )
    ).getRows() as [string, string, bigint][];
    const runs = await entryMonthRuns(duck, 12, true);
    expect(runs.length).toBeGreaterThan(4);
    // Every month with entries is in exactly one run of its workspace, and the runs' entries add up.
    for (const [workspace, month, count] of months) {
      const holding = runs.filter(
        (r) => r.workspace === workspace && r.from <= month && month <= r.to,
      );
      expect(holding, `${workspace} ${month}`).toHaveLength(1);
      const [run] = holding;
      if (run!.entries > 12) expect(run!.from.slice(0, 7)).toBe(run!.to.slice(0, 7));
      expect(run!.entries).toBeGreaterThanOrEqual(Number(count));
    }
    expect(runs.reduce((n, r) => n + r.entries, 0)).toBe(
      months.reduce((n, [, , count]) => n + Number(count), 0),
    );
    // A run ends on its last month's last day.
    for (const run of runs) expect(run.to).toMatch(/-(28|29|30|31)$/);
    const across = await entryMonthRuns(duck, 1_000_000, false);
    expect(across).toHaveLength(1);
    expect(across[0]!.workspace).toBeNull();
  });

  it('leaves every summary equal to its macro, built in runs of a few entries', async () => {
    const built = await summaries();
    expect(built.stored).toEqual(built.macros);
    expect(built.stored.profitability_facts!.length).toBeGreaterThan(300);
    expect(built.stored['SELECT * FROM payee_entry_pay']!.length).toBeGreaterThan(0);
    await duck.run('BEGIN TRANSACTION');
    try {
      await rebuildTeamPayoutTables(duck, 7);
      await rebuildProfitabilityTables(duck, 11);
      // Built in one run, they equal their macros (above): built in runs, they equal those.
      expect(await stored()).toEqual(built.stored);
    } finally {
      await duck.run('ROLLBACK');
    }
  });
});
