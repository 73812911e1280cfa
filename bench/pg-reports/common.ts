// The team-payout reports computed directly in PostgreSQL, over the operational tables of
// sql/postgres/: the baseline the report benchmarks compare the API (DuckDB read model) with.
// One file per report (payout-summary.ts, unpaid-time.ts, profitability.ts);
// test/reports/pg-reports.test.ts checks that every function returns exactly the `data` of its
// endpoint on generated workspaces.
//
// Every rule is SQL run by PostgreSQL (docs/contract.md, "Team payouts", "Profitability",
// "Money and rounding" and "FX conversion", with the choices of test/reference/README.md that
// the DuckDB views make); TypeScript only binds the parameters and shapes the rows. Money stays
// NUMERIC in PostgreSQL and arrives as text already rounded to its currency's scale:
// `round(numeric, s)` rounds half away from zero and never yields "-0.00", and a NUMERIC
// rounded to s decimals prints exactly s of them.
//
// Three conventions hold in every statement:
// * Currency scales come in as two bound arrays (`scales` CTE, from src/money/currencies.ts),
//   since the store has no currency table. A currency missing there is an error, never a guessed
//   scale: `coalesce(scale, ('unknown currency ' || code)::int)` fails the cast with that text.
// * A division that is then rounded divides a dividend lifted to 30 decimals
//   (`::numeric(1000, 30)`): by default PostgreSQL divides to 16 significant digits only, and a
//   quotient rounded there could round again the wrong way at the currency's scale.
// * Text is ordered with COLLATE "C" (code-point order, as DuckDB sorts), whatever the
//   database's collation.
import type pg from 'pg';
import { allCurrencyScales } from '../../src/money/currencies.ts';

/** A pool or a connected client: anything that runs a query. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/** The currency codes and their scales, bound as two arrays (the `scales` CTE). */
export const CURRENCY_CODES = allCurrencyScales().map(([code]) => code);
export const CURRENCY_SCALES = allCurrencyScales().map(([, scale]) => scale);

/**
 * Two CTEs of the unpaid-time and summary statements ($1 the workspace): `rate_periods`, each
 * live rate from its effective_from to its payee's next one (one live rate per payee and day),
 * and `entries_on_approved_bills`, the entries on a line (any kind) of a live APPROVED bill,
 * which are owed no more.
 */
export const OWED_TIME_CTES = `
rate_periods AS (
  SELECT
    id, payee_id, effective_from, hourly_rate, currency,
    lead(effective_from) OVER (PARTITION BY payee_id ORDER BY effective_from) AS next_from
  FROM payee_rates
  WHERE workspace_id = $1 AND deleted_at IS NULL
),
entries_on_approved_bills AS (
  SELECT DISTINCT l.time_entry_id
  FROM team_bill_lines l
  JOIN team_bills b ON b.workspace_id = l.workspace_id AND b.id = l.bill_id
  WHERE l.workspace_id = $1 AND b.status = 'APPROVED' AND b.deleted_at IS NULL
    AND l.time_entry_id IS NOT NULL
)`;
