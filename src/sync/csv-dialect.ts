import { csvBufferOptions } from '../readmodel/csv-line-limit.ts';
import type { ColumnInfo } from './copied-columns.ts';

/**
 * The one CSV dialect the sync writes and reads: PostgreSQL's `COPY … (FORMAT csv)` with its
 * defaults named, and the change files of change-batch.ts, which follow the same rules.
 * Comma, `"` quoting with doubled quotes, `\n` between rows (a quoted value may hold `\n`
 * and `\r`), NULL as an empty unquoted field, the empty string as `""`, UTF-8.
 *
 * Every option is named and DuckDB's sniffer is off: it guesses the dialect from the first
 * 20,480 rows, and a slice whose first rows needed no quoting was once read with no quote
 * character at all, so the first `"Foo, Bar"` past them split into two columns. Without
 * `new_line`, a lone `\r` inside a quoted value ended the row.
 */
export const PG_COPY_CSV = `FORMAT csv, HEADER false, DELIMITER ',', QUOTE '"', ESCAPE '"', NULL '', ENCODING 'UTF8'`;

/**
 * DuckDB's reader of `file` (of `fileBytes` bytes) in that dialect, with these column names and
 * types; its buffer follows the file's size (csvBufferBytes).
 */
export function readCsv(
  file: string,
  fileBytes: number,
  columns: { name: string; type: string }[],
): string {
  const types = columns.map((c) => `'${c.name}': '${c.type}'`).join(', ');
  return `read_csv(${sqlText(file)}, auto_detect = false, header = false, delim = ',', quote = '"', escape = '"', new_line = '\\n', nullstr = '', allow_quoted_nulls = false, encoding = 'utf-8', ${csvBufferOptions(fileBytes)}, columns = {${types}})`;
}

/** A PostgreSQL array arrives as JSON text (`array_to_json`, or built from pgoutput's literal). */
export const isArray = (column: ColumnInfo): boolean => column.type.endsWith('[]');

/**
 * The read model's value of a column read as text: the one conversion of the first load and
 * the stream alike, strict, so a value the read model cannot hold fails its batch instead of
 * changing (read_csv's own TIMESTAMPTZ parsing turned a value it could not read into NULL).
 * An array goes through DuckDB's JSON parser: a direct cast of `["a\nb"]` to VARCHAR[] reads
 * list-literal syntax, in which a backslash escapes the next character, and keeps `anb`. A
 * date refuses PostgreSQL's ` BC` suffix, which DuckDB's cast skips (year 1 AD instead).
 */
export function castText(expression: string, column: ColumnInfo): string {
  if (isArray(column)) return `CAST(CAST(${expression} AS JSON) AS ${column.type})`;
  if (column.type === 'DATE')
    return `CASE WHEN ${expression} LIKE '% BC' THEN error('date before year 1: ' || ${expression}) ELSE CAST(${expression} AS DATE) END`;
  return `CAST(${expression} AS ${column.type})`;
}

/** The same conversion, NULL where the value cannot be converted (finding a failing row). */
export function tryCastText(expression: string, column: ColumnInfo): string {
  if (isArray(column)) return `TRY_CAST(TRY_CAST(${expression} AS JSON) AS ${column.type})`;
  if (column.type === 'DATE')
    return `TRY_CAST(CASE WHEN ${expression} LIKE '% BC' THEN NULL ELSE ${expression} END AS DATE)`;
  return `TRY_CAST(${expression} AS ${column.type})`;
}

/** Columns as the change files and slices are read: all text, converted by castText. */
export const asText = (columns: ColumnInfo[]): { name: string; type: string }[] =>
  columns.map((c) => ({ name: c.name, type: 'VARCHAR' }));

/** A string literal for DuckDB statements that take no parameters (a file name). */
export function sqlText(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
