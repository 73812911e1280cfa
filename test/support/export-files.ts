import { DuckDBInstance } from '@duckdb/node-api';
import type { ExportReport } from '../../src/exports/export-reports.ts';
import type { ExportFormat } from '../../src/exports/export-writer.ts';

/**
 * The rows of an export file read back with DuckDB, every value as text: CSV and NDJSON as
 * written, Parquet's typed values turned into the API's forms here (money and decimals without
 * trailing zeros, timestamps as ISO UTC), independently of the export's own formatting macros.
 */
export async function readExportFile(
  file: string,
  format: ExportFormat,
  report: ExportReport,
): Promise<Record<string, string | null>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const source =
      format === 'csv'
        ? `read_csv($file, header = true, all_varchar = true, allow_quoted_nulls = false)`
        : format === 'ndjson'
          ? `read_json($file, format = 'newline_delimited', columns = {${report.columns
              .map((c) => `'${c.name}': 'VARCHAR'`)
              .join(', ')}})`
          : 'read_parquet($file)';
    const columns = report.columns
      .map((c) => {
        const name = `"${c.name}"`;
        if (format === 'parquet' && c.kind === 'timestamp')
          return `CAST(epoch_ms(${name}) AS VARCHAR) AS ${name}`;
        if (format === 'parquet' && c.kind === 'names')
          return `array_to_string(${name}, ';') AS ${name}`;
        return `CAST(${name} AS VARCHAR) AS ${name}`;
      })
      .join(', ');
    const reader = await connection.runAndReadAll(`SELECT ${columns} FROM ${source}`, { file });
    return reader.getRowObjectsJS() as Record<string, string | null>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
