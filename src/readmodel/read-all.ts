import type { DuckDBConnection, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';

/**
 * Runs one statement and reads its whole result: without values one call into DuckDB, with
 * values a prepare, a bind and a run. `connection.runAndReadAll(sql, values)` given any values
 * object, even an empty one, first extracts the statements (parsing the text once more) and
 * then prepares and runs: on the benchmark's list pages that cost 0.5-1.6 ms a statement
 * (docs/lists.md).
 */
export async function readAll(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue> = {},
): Promise<DuckDBResultReader> {
  if (Object.keys(values).length === 0) return connection.runAndReadAll(sql);
  const prepared = await connection.prepare(sql);
  try {
    prepared.bind(values);
    return await prepared.runAndReadAll();
  } finally {
    prepared.destroySync();
  }
}
