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

// Every summary the sync keeps (src/reports/team-payouts/team-payouts.derived.ts and
// src/reports/profitability/profitability.derived.ts) must equal, row for row, the macro it is
// refreshed from, whatever is written: writes to every table a summary reads (entries,
// payees, rates, bills and lines, invoices and lines, payments and allocations, FX rates, the
// base currency), in random mixes, then a comparison once the sync has caught up.

type Ids = Record<
  | 'entries'
  | 'users'
  | 'projects'
  | 'payees'
  | 'rates'
  | 'bills'
  | 'lines'
  | 'invoices'
  | 'invoiceLines'
  | 'payments'
  | 'fx',
  string[]
>;

type Write =
  | {
      kind: 'entry';
      n: number;
      user: number;
      project: number;
      seconds: number;
      day: number;
      running: boolean;
      billable: boolean;
    }
  | { kind: 'deleteEntry'; n: number; deleted: boolean }
  | { kind: 'payee'; n: number; startDay: number | null }
  | { kind: 'deletePayee'; n: number; deleted: boolean }
  | { kind: 'rate'; n: number; day: number; rate: number; currency: string }
  | { kind: 'newRate'; payee: number; day: number; rate: number; currency: string }
  | { kind: 'deleteRate'; n: number }
  | { kind: 'bill'; n: number; status: 'DRAFT' | 'APPROVED' | 'VOID'; deleted: boolean }
  | { kind: 'line'; n: number; entry: number; amount: number }
  | { kind: 'moveLineToBill'; n: number; bill: number }
  | { kind: 'deleteLine'; n: number }
  | {
      kind: 'invoice';
      n: number;
      status: 'DRAFT' | 'SENT' | 'PAID' | 'CANCELLED';
      paid: number;
      discount: number;
      day: number | null;
    }
  | { kind: 'invoiceLine'; n: number; entry: number | null; amount: number }
  | { kind: 'payment'; n: number; status: 'RECORDED' | 'REVERSED'; deleted: boolean }
  | { kind: 'allocation'; payment: number; bill: number; amount: number }
  | { kind: 'fx'; n: number; day: number; rate: number; deleted: boolean }
  | { kind: 'baseCurrency'; currency: string }
  | { kind: 'rename'; table: 'projects' | 'users'; n: number; name: string };

const money = (cents: number) => (cents / 100).toFixed(2);
const day = (d: number) =>
  `2026-${String(1 + (d % 12)).padStart(2, '0')}-${String(1 + (d % 28)).padStart(2, '0')}`;

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('entry' as const),
    n: fc.nat(),
    user: fc.nat(),
    project: fc.nat(),
    seconds: fc.integer({ min: 0, max: 30_000 }),
    day: fc.nat(400),
    running: fc.boolean(),
    billable: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('deleteEntry' as const), n: fc.nat(), deleted: fc.boolean() }),
  fc.record({
    kind: fc.constant('payee' as const),
    n: fc.nat(),
    startDay: fc.option(fc.nat(400), { nil: null }),
  }),
  fc.record({ kind: fc.constant('deletePayee' as const), n: fc.nat(), deleted: fc.boolean() }),
  fc.record({
    kind: fc.constant('rate' as const),
    n: fc.nat(),
    day: fc.nat(400),
    rate: fc.integer({ min: 0, max: 20_000 }),
    currency: fc.constantFrom('USD', 'EUR', 'JPY', 'KWD'),
  }),
  fc.record({
    kind: fc.constant('newRate' as const),
    payee: fc.nat(),
    day: fc.nat(400),
    rate: fc.integer({ min: 0, max: 20_000 }),
    currency: fc.constantFrom('USD', 'EUR', 'JPY'),
  }),
  fc.record({ kind: fc.constant('deleteRate' as const), n: fc.nat() }),
  fc.record({
    kind: fc.constant('bill' as const),
    n: fc.nat(),
    status: fc.constantFrom('DRAFT' as const, 'APPROVED' as const, 'VOID' as const),
    deleted: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('line' as const),
    n: fc.nat(),
    entry: fc.nat(),
    amount: fc.integer({ min: -5_000, max: 90_000 }),
  }),
  fc.record({ kind: fc.constant('moveLineToBill' as const), n: fc.nat(), bill: fc.nat() }),
  fc.record({ kind: fc.constant('deleteLine' as const), n: fc.nat() }),
  fc.record({
    kind: fc.constant('invoice' as const),
    n: fc.nat(),
    status: fc.constantFrom(
      'DRAFT' as const,
      'SENT' as const,
      'PAID' as const,
      'CANCELLED' as const,
    ),
    paid: fc.integer({ min: 0, max: 900_000 }),
    discount: fc.integer({ min: 0, max: 50_000 }),
    day: fc.option(fc.nat(400), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('invoiceLine' as const),
    n: fc.nat(),
    entry: fc.option(fc.nat(), { nil: null }),
    amount: fc.integer({ min: -5_000, max: 90_000 }),
  }),
  fc.record({
    kind: fc.constant('payment' as const),
    n: fc.nat(),
    status: fc.constantFrom('RECORDED' as const, 'REVERSED' as const),
    deleted: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('allocation' as const),
    payment: fc.nat(),
    bill: fc.nat(),
    amount: fc.integer({ min: 1, max: 90_000 }),
  }),
  fc.record({
    kind: fc.constant('fx' as const),
    n: fc.nat(),
    day: fc.nat(400),
    rate: fc.integer({ min: 1, max: 40_000 }),
    deleted: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('baseCurrency' as const),
    currency: fc.constantFrom('EUR', 'USD', 'GBP'),
  }),
  fc.record({
    kind: fc.constant('rename' as const),
    table: fc.constantFrom('projects' as const, 'users' as const),
    n: fc.nat(),
    name: fc.constantFrom('Aaron', 'Zoe', 'Mid'),
  }),
);

const pick = (list: string[], n: number) => list[n % list.length]!;

async function apply(client: pg.PoolClient, ids: Ids, write: Write): Promise<void> {
  switch (write.kind) {
    case 'entry':
      await client.query(
        `UPDATE time_entries SET user_id = $2, duration_seconds = $3, entry_date = $4, is_running = $5 WHERE id = $1`,
        [
          pick(ids.entries, write.n),
          pick(ids.users, write.user),
          write.seconds,
          day(write.day),
          write.running,
        ],
      );
      return;
    case 'deleteEntry':
      await client.query(`UPDATE time_entries SET deleted_at = $2 WHERE id = $1`, [
        pick(ids.entries, write.n),
        write.deleted ? new Date() : null,
      ]);
      return;
    case 'payee':
      await client.query(`UPDATE payees SET start_date = $2 WHERE id = $1`, [
        pick(ids.payees, write.n),
        write.startDay === null ? null : day(write.startDay),
      ]);
      return;
    case 'deletePayee':
      // One live payee per user: undeleting may collide with another live one, which is fine
      // to skip (the write fails inside its savepoint).
      await client.query(`UPDATE payees SET deleted_at = $2 WHERE id = $1`, [
        pick(ids.payees, write.n),
        write.deleted ? new Date() : null,
      ]);
      return;
    case 'rate':
      await client.query(
        `UPDATE payee_rates SET effective_from = $2, hourly_rate = $3, currency = $4 WHERE id = $1`,
        [pick(ids.rates, write.n), day(write.day), money(write.rate), write.currency],
      );
      return;
    case 'newRate': {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO payee_rates (id, workspace_id, payee_id, effective_from, hourly_rate, currency)
         SELECT gen_random_uuid(), workspace_id, id, $2, $3, $4 FROM payees WHERE id = $1 RETURNING id`,
        [pick(ids.payees, write.payee), day(write.day), money(write.rate), write.currency],
      );
      ids.rates.push(rows[0]!.id);
      return;
    }
    case 'deleteRate':
      await client.query(`UPDATE payee_rates SET deleted_at = now() WHERE id = $1`, [
        pick(ids.rates, write.n),
      ]);
      return;
    case 'bill':
      await client.query(`UPDATE team_bills SET status = $2, deleted_at = $3 WHERE id = $1`, [
        pick(ids.bills, write.n),
        write.status,
        write.deleted ? new Date() : null,
      ]);
      return;
    case 'line':
      await client.query(
        `UPDATE team_bill_lines SET kind = 'TIME', time_entry_id = $2, amount = $3 WHERE id = $1`,
        [pick(ids.lines, write.n), pick(ids.entries, write.entry), money(write.amount)],
      );
      return;
    case 'moveLineToBill':
      await client.query(`UPDATE team_bill_lines SET bill_id = $2 WHERE id = $1`, [
        pick(ids.lines, write.n),
        pick(ids.bills, write.bill),
      ]);
      return;
    case 'deleteLine': {
      const id = pick(ids.lines, write.n);
      await client.query(`DELETE FROM team_bill_lines WHERE id = $1`, [id]);
      if (ids.lines.length > 1) ids.lines.splice(ids.lines.indexOf(id), 1);
      return;
    }
    case 'invoice':
      await client.query(
        `UPDATE invoices SET status = $2, amount_paid = $3, issue_date = $4, discount_amount = $5
         WHERE id = $1`,
        [
          pick(ids.invoices, write.n),
          write.status,
          money(write.paid),
          write.day === null ? null : day(write.day),
          money(write.discount),
        ],
      );
      return;
    case 'invoiceLine':
      await client.query(`UPDATE invoice_lines SET time_entry_id = $2, amount = $3 WHERE id = $1`, [
        pick(ids.invoiceLines, write.n),
        write.entry === null ? null : pick(ids.entries, write.entry),
        money(write.amount),
      ]);
      return;
    case 'payment':
      await client.query(`UPDATE team_payments SET status = $2, deleted_at = $3 WHERE id = $1`, [
        pick(ids.payments, write.n),
        write.status,
        write.deleted ? new Date() : null,
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
    case 'rename':
      await client.query(`UPDATE ${write.table} SET name = $2 WHERE id = $1`, [
        pick(write.table === 'projects' ? ids.projects : ids.users, write.n),
        write.name,
      ]);
      return;
    case 'baseCurrency':
      await client.query(`UPDATE workspaces SET base_currency = $1`, [write.currency]);
      return;
  }
}

describe.each(['replication', 'change-log'] as const)('summaries kept by the %s sync', (mode) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let duck: DuckDBConnection;
  let sync: SyncService;
  let syncPool: pg.Pool;
  const ids: Ids = {
    entries: [],
    users: [],
    projects: [],
    payees: [],
    rates: [],
    bills: [],
    lines: [],
    invoices: [],
    invoiceLines: [],
    payments: [],
    fx: [],
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = mode === 'change-log' ? await restrictedRoleUrl(database.url) : database.url;
    pool = createPool(database.url);
    await generatedWorkspace(pool, { seed: 11, timeEntries: 160, members: 6, clients: 4 });
    for (const [key, sql] of [
      ['entries', 'SELECT id FROM time_entries ORDER BY id'],
      ['users', 'SELECT id FROM users ORDER BY id'],
      ['projects', 'SELECT id FROM projects ORDER BY id'],
      ['invoices', 'SELECT id FROM invoices ORDER BY id'],
      ['invoiceLines', 'SELECT id FROM invoice_lines ORDER BY id'],
      ['payments', 'SELECT id FROM team_payments ORDER BY id'],
      ['fx', 'SELECT id FROM fx_rates ORDER BY id'],
      ['payees', 'SELECT id FROM payees ORDER BY id'],
      ['rates', 'SELECT id FROM payee_rates ORDER BY id'],
      ['bills', 'SELECT id FROM team_bills ORDER BY id'],
      ['lines', 'SELECT id FROM team_bill_lines ORDER BY id'],
    ] as const) {
      ids[key] = (await pool.query<{ id: string }>(sql)).rows.map((r) => r.id);
      expect(ids[key].length, key).toBeGreaterThan(0);
    }
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
        fc.array(fc.array(writeArb, { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 5,
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
      { numRuns: 12 },
    );
  }, 240_000);
});
