import type { DuckDBConnection } from '@duckdb/node-api';

/** The memory DuckDB holds, by its tag (`duckdb_memory()`), in bytes; tags holding none left out. */
export async function readModelMemory(
  connection: DuckDBConnection,
): Promise<{ tag: string; bytes: number }[]> {
  const result = await connection.runAndReadAll(
    'SELECT tag, memory_usage_bytes::DOUBLE FROM duckdb_memory() WHERE memory_usage_bytes > 0',
  );
  // Columns typed by the statement: VARCHAR, DOUBLE.
  return result.getRowsJS().map(([tag, bytes]) => ({ tag: tag as string, bytes: bytes as number }));
}
