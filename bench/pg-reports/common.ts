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
