import type pg from 'pg';
import { describe, expect } from 'vitest';
import { ids } from '../support/small-snapshot.ts';
import { syncEveryWay } from '../support/sync-every-way.ts';

const MAX_18_4 = '99999999999999.9999';
const MAX_18_10 = '99999999.9999999999';
const FIRST_INSTANT = '0001-01-01 00:00:00+00';
const LAST_INSTANT = '9999-12-31 23:59:59.999999+00';

/** Another currency pair per set, so fx_rates' (pair, date) stays unique. */
const PAIRS: Record<string, [string, string]> = {
  first: ['USD', 'JPY'],
  streamed: ['CHF', 'SEK'],
  logged: ['NOK', 'DKK'],
};

/**
 * Rows holding the extremes of every column type the copied tables use: uuid, text and
 * text[] and uuid[] with odd elements (the text `NULL`, but no NULL element, which the store
 * refuses: sql/postgres/0009_array_elements.sql), numeric(18,4) and (18,10) at both ends and their
 * smallest fraction, integer at both ends, booleans, dates 0001-01-01 and 9999-12-31,
 * timestamps at the first and the last microsecond of that range and before year 1000,
 * jsonb. Written as literals in one statement per table.
 */
async function insertExtremes(pool: pg.Pool, set: string): Promise<void> {
  const id = (name: string) => `md5('${set}' || '${name}')::uuid`;
  const [from, to] = PAIRS[set]!;
  const ws = `'${ids.workspace}'`;
  await pool.query(`
    INSERT INTO time_entries (id, workspace_id, user_id, project_id, entry_date, duration_seconds,
      billable, is_running, started_at, stopped_at, note, created_at, updated_at, deleted_at)
    VALUES
      (${id('e1')}, ${ws}, '${ids.owner}', '${ids.project}', '0001-01-01', 0, false, true,
       '${FIRST_INSTANT}', '0001-01-01 00:00:00.000001+00', 'first', '${FIRST_INSTANT}', '${FIRST_INSTANT}', NULL),
      (${id('e2')}, ${ws}, '${ids.owner}', '${ids.project}', '9999-12-31', 2147483647, true, false,
       '9999-12-31 23:59:59.999998+00', '${LAST_INSTANT}', 'last', '${LAST_INSTANT}', '${LAST_INSTANT}', '0999-12-31 23:59:59.999999+00'),
      (${id('e3')}, ${ws}, '${ids.member}', '${ids.project}', '0999-06-15', 1, true, false,
       '0999-06-15 12:34:56.000001-03:30', '2024-06-30 23:59:59.999999+05:45', 'odd offsets', '1883-11-18 12:03:58-04:56:02', now(), NULL)`);
  await pool.query(`
    INSERT INTO invoices (id, workspace_id, client_id, number, status, payment_status, currency,
      issue_date, due_date, subtotal, discount_amount, tax_rate, total, amount_paid, recurring, viewed,
      sent_at, paid_at, created_at, updated_at)
    VALUES
      (${id('i1')}, ${ws}, '${ids.client}', '${set}-1', 'DRAFT', 'unpaid', 'EUR', '0001-01-01', '9999-12-31',
       '${MAX_18_4}', '0.0001', '${MAX_18_4}', '-${MAX_18_4}', '0', true, false,
       '${FIRST_INSTANT}', '${LAST_INSTANT}', '${FIRST_INSTANT}', '${LAST_INSTANT}'),
      (${id('i2')}, ${ws}, '${ids.client}', '${set}-2', 'DRAFT', 'unpaid', 'EUR', NULL, NULL,
       '-0.0001', '0', NULL, '0.0001', '${MAX_18_4}', false, true, NULL, NULL, now(), now())`);
  await pool.query(`
    INSERT INTO invoice_lines (id, workspace_id, invoice_id, position, kind, description, quantity, unit_price, amount)
    VALUES
      (${id('l1')}, ${ws}, ${id('i1')}, -2147483648, 'OTHER', 'min', '-${MAX_18_4}', '-0.0001', '-${MAX_18_4}'),
      (${id('l2')}, ${ws}, ${id('i1')}, 2147483647, 'OTHER', 'max', '${MAX_18_4}', '0.0001', '${MAX_18_4}')`);
  await pool.query(`
    INSERT INTO fx_rates (id, workspace_id, from_currency, to_currency, effective_from, rate, created_at, updated_at)
    VALUES
      (${id('f1')}, ${ws}, '${from}', '${to}', '0001-01-01', '${MAX_18_10}', '${FIRST_INSTANT}', '${LAST_INSTANT}'),
      (${id('f2')}, ${ws}, '${from}', '${to}', '9999-12-31', '0.0000000001', now(), now())`);
  await pool.query(`
    INSERT INTO payee_credits (id, workspace_id, payee_id, currency, amount, remaining, reason)
    VALUES (${id('c1')}, ${ws}, '${ids.payee}', 'EUR', '${MAX_18_4}', '0.0001', '𝄞 "credit", \\ back')`);
  await pool.query(`
    INSERT INTO tasks (id, workspace_id, project_id, name, billable, estimated_hours, assignee_ids, tags,
      start_date, due_date, end_date)
    VALUES
      (${id('t1')}, ${ws}, '${ids.project}', 'extremes', false, '${MAX_18_4}',
       ARRAY['${ids.owner}', '${ids.member}']::uuid[],
       ARRAY[E'back\\\\slash', 'say "hi"', '', ' sp ', 'NULL', '{x,y}', '𝄞😀', E'new\\nline\\rcr\\ttab', 'a,b'],
       '0001-01-01', '9999-12-31', NULL),
      (${id('t2')}, ${ws}, '${ids.project}', 'empty arrays', true, '0.0001', '{}', '{}', NULL, NULL, '0999-01-01')`);
  // jsonb: numbers beyond any float, escapes, non-BMP text, a JSON null beside an SQL NULL.
  await pool.query(
    `UPDATE team_bills SET
       payee_snapshot = $2::jsonb, agency_snapshot = 'null'::jsonb,
       issue_date = '0001-01-01', due_date = '9999-12-31', approved_at = '${LAST_INSTANT}'
     WHERE id = $1`,
    [
      ids.bill,
      JSON.stringify({
        set,
        n: '123456789012345678901234567890.123456789',
        s: 'a"b\\c\nd\r\te 𝄞😀 \u0001',
        e: [],
        o: {},
        t: true,
        z: null,
      }).replace(
        '"123456789012345678901234567890.123456789"',
        '123456789012345678901234567890.123456789',
      ),
    ],
  );
  await pool.query(
    `UPDATE projects SET budget_amount = '${MAX_18_4}', budget_hours = '0.0001', start_date = '0001-01-01',
       due_date = '9999-12-31', fixed_fee_billing_initialized_at = '${FIRST_INSTANT}'
     WHERE id = '${ids.project}'`,
  );
}

/** Updates turning rows of an earlier set into the other extreme (streamed as updates). */
async function flipExtremes(pool: pg.Pool, set: string): Promise<void> {
  const id = (name: string) => `md5('${set}' || '${name}')::uuid`;
  await pool.query(`UPDATE time_entries SET started_at = '${LAST_INSTANT}', stopped_at = NULL,
    entry_date = '9999-12-31', duration_seconds = 2147483647, billable = NOT billable WHERE id = ${id('e1')}`);
  await pool.query(
    `UPDATE invoices SET total = '${MAX_18_4}', subtotal = '-${MAX_18_4}' WHERE id = ${id('i1')}`,
  );
  await pool.query(
    `UPDATE invoice_lines SET position = CASE WHEN position < 0 THEN 2147483647 ELSE -2147483648 END WHERE invoice_id = ${id('i1')}`,
  );
}

describe('every value the copied columns can hold', () => {
  syncEveryWay({
    // A server whose sessions default to another zone (with odd and historic offsets) and to
    // day-first dates: the sync must ask for UTC and ISO itself.
    configure: async (admin, name) => {
      await admin.query(`ALTER DATABASE ${name} SET TimeZone = 'America/St_Johns'`);
      await admin.query(`ALTER DATABASE ${name} SET DateStyle = 'SQL, DMY'`);
    },
    seed: (pool) => insertExtremes(pool, 'first'),
    change: async (pool, mode) => {
      const [set, earlier] =
        mode === 'replication' ? ['streamed', 'first'] : ['logged', 'streamed'];
      await insertExtremes(pool, set);
      await flipExtremes(pool, earlier);
    },
    expectStore: (store) =>
      expect(store.time_entries!.some((row) => row.includes('0001-01-01 00:00:00.000000'))).toBe(
        true,
      ),
  });
});
