import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJournal } from '../../src/exports/export-journal.ts';
import type { DerivedTables } from '../../src/readmodel/derived-tables.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import {
  IN_PROCESS_ENTRIES,
  profitabilityPart,
} from '../../src/reports/profitability/profitability.derived.ts';
import { teamPayoutPart } from '../../src/reports/team-payouts/team-payouts.derived.ts';
import { searchIndex } from '../../src/search/search.derived.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { generatedWorkspace } from '../support/generated-workspaces.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { factsBoth, rowsOf, SUMMARY_MACROS } from '../support/summary-macros.ts';

// A sync batch with few stale entries prices their facts in process and changes the rollups by
// deltas (src/reports/profitability/fact-refresh.ts), and computes their payable rows and
// their payees' unpaid totals the same way (src/reports/team-payouts/payable-refresh.ts); a
// larger one, or every one when the parts are told so, refreshes them from the macros
// (profitability_facts_for, the rollups summed again, payee_entry_rates_for,
// payee_unpaid_totals_for). Both must leave every summary equal, row for row, to the macro it is defined by,
// whatever is written: here with amounts whose facts and sums pass 2^53, 2^62 (rows of 64-bit
// parts) and 2^63, in both sync modes.

type Ids = Record<
  'entries' | 'users' | 'payees' | 'rates' | 'bills' | 'lines' | 'invoices' | 'invoiceLines',
  string[]
> & { payments: string[]; fx: string[] };

/** Hundredths of a currency unit, from cents to 99,999,999,999,999.99 (DECIMAL(18,4)'s largest). */
const cents = fc.oneof(
  fc.bigInt({ min: 0n, max: 90_000n }),
  fc.bigInt({ min: 0n, max: 9_999_999_999_999_999n }),
  fc.constantFrom(9_999_999_999_999_999n, 9_007_199_254_740_993n, 4_611_686_018_427_388n),
);
const money = (c: bigint) =>
  `${c < 0n ? '-' : ''}${(c < 0n ? -c : c) / 100n}.${String((c < 0n ? -c : c) % 100n).padStart(2, '0')}`;
const day = (d: number) =>
  `2026-${String(1 + (d % 12)).padStart(2, '0')}-${String(1 + (d % 28)).padStart(2, '0')}`;

type Write =
  | {
      kind: 'entry';
      n: number;
      user: number;
      seconds: number;
      day: number;
      running: boolean;
      billable: boolean;
    }
  | { kind: 'deleteEntry'; n: number; deleted: boolean }
  | { kind: 'rate'; n: number; day: number; rate: bigint; currency: string }
  | { kind: 'line'; n: number; entry: number; amount: bigint }
  | { kind: 'bill'; n: number; status: 'DRAFT' | 'APPROVED' | 'VOID' }
  | {
      kind: 'invoice';
      n: number;
      status: 'DRAFT' | 'SENT' | 'PAID';
      paid: bigint;
      discount: bigint;
    }
  | { kind: 'invoiceLine'; n: number; entry: number | null; amount: bigint; negative: boolean }
  | { kind: 'allocation'; payment: number; bill: number; amount: bigint }
  | { kind: 'fx'; n: number; day: number; rate: number; deleted: boolean }
  | { kind: 'baseCurrency'; currency: string };

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('entry' as const),
    n: fc.nat(),
    user: fc.nat(),
    // Up to 27 hours: at the largest rate, one entry's cost passes 2^64.
    seconds: fc.oneof(fc.integer({ min: 0, max: 30_000 }), fc.constant(100_000)),
    day: fc.nat(400),
    running: fc.boolean(),
    billable: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('deleteEntry' as const), n: fc.nat(), deleted: fc.boolean() }),
  fc.record({
    kind: fc.constant('rate' as const),
    n: fc.nat(),
    day: fc.nat(400),
    rate: cents,
    currency: fc.constantFrom('USD', 'EUR', 'JPY', 'KWD'),
  }),
  fc.record({ kind: fc.constant('line' as const), n: fc.nat(), entry: fc.nat(), amount: cents }),
  fc.record({
    kind: fc.constant('bill' as const),
    n: fc.nat(),
    status: fc.constantFrom('DRAFT' as const, 'APPROVED' as const, 'VOID' as const),
  }),
  fc.record({
    kind: fc.constant('invoice' as const),
    n: fc.nat(),
    status: fc.constantFrom('DRAFT' as const, 'SENT' as const, 'PAID' as const),
    paid: cents,
    discount: cents,
  }),
  fc.record({
    kind: fc.constant('invoiceLine' as const),
    n: fc.nat(),
    entry: fc.option(fc.nat(), { nil: null }),
    amount: cents,
    negative: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('allocation' as const),
    payment: fc.nat(),
    bill: fc.nat(),
    amount: fc.bigInt({ min: 1n, max: 999_999_999_999_999n }),
  }),
  fc.record({
    kind: fc.constant('fx' as const),
    n: fc.nat(),
    day: fc.nat(400),
    // Up to 9.9999: a converted sum stays within what the rollups store (e4_parts: 2^82).
    rate: fc.integer({ min: 1, max: 99_999 }),
    deleted: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('baseCurrency' as const),
    currency: fc.constantFrom('EUR', 'USD', 'GBP'),
  }),
);

const pick = (list: string[], n: number) => list[n % list.length]!;

async function apply(client: pg.PoolClient, ids: Ids, write: Write): Promise<void> {
  switch (write.kind) {
    case 'entry':
      await client.query(
        `UPDATE time_entries SET user_id = $2, duration_seconds = $3, entry_date = $4,
           is_running = $5, billable = $6
         WHERE id = $1`,
        [
          pick(ids.entries, write.n),
          pick(ids.users, write.user),
          write.seconds,
          day(write.day),
          write.running,
          write.billable,
        ],
      );
      return;
    case 'deleteEntry':
      await client.query(`UPDATE time_entries SET deleted_at = $2 WHERE id = $1`, [
        pick(ids.entries, write.n),
        write.deleted ? new Date() : null,
      ]);
      return;
    case 'rate':
      await client.query(
        `UPDATE payee_rates SET effective_from = $2, hourly_rate = $3, currency = $4 WHERE id = $1`,
        [pick(ids.rates, write.n), day(write.day), money(write.rate), write.currency],
      );
      return;
    case 'line':
      await client.query(
        `UPDATE team_bill_lines SET kind = 'TIME', time_entry_id = $2, amount = $3 WHERE id = $1`,
        [pick(ids.lines, write.n), pick(ids.entries, write.entry), money(write.amount)],
      );
      return;
    case 'bill':
      await client.query(`UPDATE team_bills SET status = $2 WHERE id = $1`, [
        pick(ids.bills, write.n),
        write.status,
      ]);
      return;
    case 'invoice':
      await client.query(
        `UPDATE invoices SET status = $2, amount_paid = $3, discount_amount = $4 WHERE id = $1`,
        [pick(ids.invoices, write.n), write.status, money(write.paid), money(write.discount)],
      );
      return;
    case 'invoiceLine':
      await client.query(`UPDATE invoice_lines SET time_entry_id = $2, amount = $3 WHERE id = $1`, [
        pick(ids.invoiceLines, write.n),
        write.entry === null ? null : pick(ids.entries, write.entry),
        money(write.negative ? -write.amount : write.amount),
      ]);
      return;
    case 'allocation':
      await client.query(
        `INSERT INTO team_payment_allocations (workspace_id, payment_id, bill_id, amount, position)
         SELECT workspace_id, $1, $2, $3,
           (SELECT coalesce(max(position), 0) + 1 FROM team_payment_allocations WHERE payment_id = $1)
         FROM team_payments WHERE id = $1
         ON CONFLICT (payment_id, bill_id) DO UPDATE SET amount = excluded.amount`,
        [pick(ids.payments, write.payment), pick(ids.bills, write.bill), money(write.amount)],
      );
      return;
    case 'fx':
      await client.query(
        `UPDATE fx_rates SET effective_from = $2, rate = $3, deleted_at = $4 WHERE id = $1`,
        [
          pick(ids.fx, write.n),
          day(write.day),
          (write.rate / 10_000).toFixed(4),
          write.deleted ? new Date() : null,
        ],
      );
      return;
    case 'baseCurrency':
      await client.query(`UPDATE workspaces SET base_currency = $1`, [write.currency]);
      return;
  }
}

describe.each(['replication', 'change-log'] as const)('summaries kept by the %s sync', (mode) => {
  describe.each([
    ['in process', IN_PROCESS_ENTRIES],
    ['by the macros', 0],
  ] as const)('with the facts priced %s', (how, inProcessUpTo) => {
    let database: Awaited<ReturnType<typeof createTestDatabase>>;
    let pool: pg.Pool;
    let syncPool: pg.Pool;
    let readModel: ReadModel;
    let duck: DuckDBConnection;
    let sync: SyncService;
    const refreshes = { 'in-process': 0, macros: 0 };
    const payoutRefreshes = { 'in-process': 0, macros: 0 };
    const ids = {} as Ids;

    beforeAll(async () => {
      database = await createTestDatabase();
      const url = mode === 'change-log' ? await restrictedRoleUrl(database.url) : database.url;
      pool = createPool(database.url);
      await generatedWorkspace(pool, { seed: 23, timeEntries: 120, members: 5, clients: 4 });
      for (const [key, table] of [
        ['entries', 'time_entries'],
        ['users', 'users'],
        ['payees', 'payees'],
        ['rates', 'payee_rates'],
        ['bills', 'team_bills'],
        ['lines', 'team_bill_lines'],
        ['invoices', 'invoices'],
        ['invoiceLines', 'invoice_lines'],
        ['payments', 'team_payments'],
        ['fx', 'fx_rates'],
      ] as const) {
        ids[key] = (
          await pool.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)
        ).rows.map((r) => r.id);
        expect(ids[key].length, key).toBeGreaterThan(0);
      }
      readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
      duck = await readModel.connect();
      syncPool = mode === 'change-log' ? createPool(url) : pool;
      const derived: DerivedTables[] = [
        searchIndex,
        teamPayoutPart({ inProcessUpTo, onRefresh: (way) => payoutRefreshes[way]++ }),
        profitabilityPart({ inProcessUpTo, onRefresh: (way) => refreshes[way]++ }),
        exportJournal,
      ];
      sync = new SyncService({
        pool: syncPool,
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

    it('keep a month past 2^63 as rows of 64-bit parts, and one row again once it is not', async () => {
      // A payee's hours at the largest rate DECIMAL(18,4) holds, two entries of ten hours and five seconds (three parts, two of them a unit larger) in
      // one month: each fact is three rows, the month's sums past 2^64.
      const { rows } = await pool.query<{ user_id: string; payee_id: string; ids: string[] }>(
        `SELECT p.user_id, p.id AS payee_id, array_agg(e.id ORDER BY e.id) AS ids
         FROM payees p JOIN time_entries e ON e.user_id = p.user_id AND e.workspace_id = p.workspace_id
         WHERE p.deleted_at IS NULL GROUP BY 1, 2 HAVING count(*) >= 2 LIMIT 1`,
      );
      const { payee_id: payee, ids: entries } = rows[0]!;
      const [a, b] = entries;
      await pool.query(
        `UPDATE payee_rates SET hourly_rate = '99999999999999.99', currency = 'EUR',
           effective_from = '2020-01-01', deleted_at = NULL
         WHERE id = (SELECT id FROM payee_rates WHERE payee_id = $1 ORDER BY id LIMIT 1)`,
        [payee],
      );
      await pool.query(
        `UPDATE payee_rates SET deleted_at = now()
         WHERE payee_id = $1 AND id <> (SELECT id FROM payee_rates WHERE payee_id = $1 ORDER BY id LIMIT 1)`,
        [payee],
      );
      await pool.query(`UPDATE payees SET start_date = NULL WHERE id = $1`, [payee]);
      await pool.query(
        `UPDATE time_entries SET duration_seconds = 36005, entry_date = '2026-03-10',
           is_running = false, deleted_at = NULL
         WHERE id IN ($1, $2)`,
        [a, b],
      );
      await sync.waitForStore();
      await expectSummariesEqual();
      const parts = async () =>
        Number(
          (
            await duck.runAndReadAll(
              `SELECT count(*) FROM profitability_month_facts WHERE counts IS NULL`,
            )
          ).getRows()[0]![0],
        );
      expect(await parts()).toBeGreaterThan(0);
      // 36,005 s at 999,999,999,999,999,900 units an hour: 10,001,388,888,888,887,900 units in
      // three rows, 2 left over after dividing by three (e4_part: a unit more on two of them).
      const fact = await duck.runAndReadAll(
        `SELECT list(CAST(estimated_e4 AS VARCHAR) ORDER BY estimated_e4)
         FROM profitability_facts WHERE time_entry_id = '${a}'`,
      );
      expect(fact.getRowsJson()).toEqual([
        [['3333796296296295966', '3333796296296295967', '3333796296296295967']],
      ]);
      // A second less: the month's change is small, but its sums are in parts, cut again.
      await pool.query(`UPDATE time_entries SET duration_seconds = 36004 WHERE id = $1`, [a]);
      await sync.waitForStore();
      await expectSummariesEqual();
      // A minute each: the month's sums fit one row again.
      await pool.query(`UPDATE time_entries SET duration_seconds = 60 WHERE id IN ($1, $2)`, [
        a,
        b,
      ]);
      await sync.waitForStore();
      await expectSummariesEqual();
      // One of them ten hours again, the other deleted: its facts leave the rollups.
      await pool.query(`UPDATE time_entries SET duration_seconds = 36005 WHERE id = $1`, [a]);
      await pool.query(`UPDATE time_entries SET deleted_at = now() WHERE id = $1`, [b]);
      await sync.waitForStore();
      await expectSummariesEqual();
    });

    it('stay equal to their macros through random writes, amounts past 2^53 and 2^63', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(writeArb, { minLength: 1, maxLength: 5 }), {
            minLength: 1,
            maxLength: 4,
          }),
          async (transactions) => {
            for (const writes of transactions) {
              const client = await pool.connect();
              try {
                await client.query('BEGIN');
                for (const write of writes) {
                  await client.query('SAVEPOINT w');
                  try {
                    await apply(client, ids, write);
                    await client.query('RELEASE SAVEPOINT w');
                  } catch {
                    await client.query('ROLLBACK TO SAVEPOINT w');
                  }
                }
                await client.query('COMMIT');
              } finally {
                client.release();
              }
            }
            await sync.waitForStore();
            await expectSummariesEqual();
          },
        ),
        { numRuns: 14 },
      );
      // Each batch took the way asked for: the workspace has fewer entries than the limit.
      const [asked, other] =
        how === 'in process'
          ? (['in-process', 'macros'] as const)
          : (['macros', 'in-process'] as const);
      expect(refreshes[asked]).toBeGreaterThan(0);
      expect(refreshes[other]).toBe(0);
      expect(payoutRefreshes[asked]).toBeGreaterThan(0);
      expect(payoutRefreshes[other]).toBe(0);
    }, 300_000);
  });
});
