import fc from 'fast-check';
import type pg from 'pg';
import { expect } from 'vitest';

// Random writes to every table a summary reads (entries, payees, rates, bills and lines,
// invoices and lines, payments and allocations, FX rates, the base currency, the names), for
// test/reports/summaries-sync.test.ts. A write picks its rows by number from the ids of a
// generated workspace; one the store refuses is skipped (writeTransactions).

/** The ids of the generated workspace's rows, per table, that the writes pick from. */
export type WriteTargets = Record<
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

/** One write to one row of a summarized table. */
export type SummaryWrite =
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

/** Any one of the writes, over any row (row numbers are taken modulo the table's ids). */
export const summaryWrite: fc.Arbitrary<SummaryWrite> = fc.oneof(
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

/** Applies `write`; a write that adds or deletes a row keeps `ids` up to date. */
async function applySummaryWrite(
  client: pg.PoolClient,
  ids: WriteTargets,
  write: SummaryWrite,
): Promise<void> {
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

/** Reads the ids of every table the writes change, each list in id order and none empty. */
export async function loadWriteTargets(pool: pg.Pool): Promise<WriteTargets> {
  const ids: WriteTargets = {
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
  return ids;
}

/**
 * Commits each list of writes as one transaction; each write runs in a savepoint, and one that
 * fails (a second live payee for a user, say) is rolled back alone and skipped.
 */
export async function writeTransactions(
  pool: pg.Pool,
  ids: WriteTargets,
  transactions: SummaryWrite[][],
): Promise<void> {
  for (const writes of transactions) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const write of writes) {
        await client.query('SAVEPOINT w');
        try {
          await applySummaryWrite(client, ids, write);
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
}
