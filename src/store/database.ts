import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

// DATE stays a 'YYYY-MM-DD' string: a JS Date would shift it by the process time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);
// NUMERIC and INT8 already arrive as strings, which is what money and counts need.

/** One pool per process for the operational store. */
export function createPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    application_name: 'ledgerline',
    // Every session in UTC with ISO dates, set at connection start-up (no extra query racing
    // the first one): a DATE read as text stays 'YYYY-MM-DD' whatever the server's DateStyle.
    options: '-c TimeZone=UTC -c DateStyle=ISO,YMD',
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

export function createKysely(pool: pg.Pool): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
