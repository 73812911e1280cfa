import type { DuckDBConnection, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';
import {
  DefaultQueryCompiler,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  type CompiledQuery,
} from 'kysely';

/**
 * Kysely's builder for read-model statements built from parts (docs/decisions.md, "Typed SQL
 * of the read model"): it only compiles, and the caller runs the SQL on its own DuckDB
 * connection, so values come back as DuckDB's own (DECIMAL, DATE, HUGEINT), never converted
 * by a driver.
 *
 * Placeholders are numbered (`$1`, `$2`): DuckDB numbers bare `?` placeholders of a
 * `COPY (SELECT ... ?) TO ?` statement target first, so bare ones would bind the file name to
 * the query's first value. Numbered ones mean what they say wherever the statement nests them.
 */
class DuckDbCompiler extends DefaultQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return `$${this.numParameters}`;
  }
}

/** A query builder over the read-model tables `DB` declares; it compiles and never runs. */
export function readModelQueries<DB>(): Kysely<DB> {
  return new Kysely<DB>({
    dialect: {
      // DuckDB's SQL is PostgreSQL's where a compiled statement differs between dialects:
      // double-quoted names, RETURNING, and no auto-increment in DDL.
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new DuckDbCompiler(),
    },
  });
}

/** Runs a compiled statement on a read-model connection and reads its rows. */
export function runCompiled(
  connection: DuckDBConnection,
  statement: CompiledQuery,
): Promise<DuckDBResultReader> {
  return connection.runAndReadAll(statement.sql, statement.parameters as DuckDBValue[]);
}
