import type { DuckDBConnection } from '@duckdb/node-api';
import { tryCastText } from './csv-dialect.ts';
import type { ColumnInfo } from './copied-columns.ts';

/** A source value the read model's column type cannot hold, and the row it is in. */
export interface BadValue {
  /** The row's primary key, column -> value as PostgreSQL's text. */
  key: Record<string, string>;
  /** Null when the row fails whatever one column holds. */
  column: string | null;
  /** The value as PostgreSQL sent it, cut to 200 characters. */
  value: string;
}

/**
 * Rows of `table` could not be written into the read model. Names the table and, when a
 * value the read model cannot hold was the cause, the row's key and the value, so that an
 * operator can find and correct the row in PostgreSQL (docs/sync.md, "When a change cannot
 * be applied").
 */
export class ApplyError extends Error {
  constructor(
    readonly table: string,
    readonly bad: BadValue | undefined,
    cause: unknown,
  ) {
    const reason = firstLine(cause);
    super(
      bad?.column
        ? `Cannot apply ${table} ${keyText(bad.key)}: its ${bad.column} ${JSON.stringify(bad.value)} does not fit the read model (${reason})`
        : bad
          ? `Cannot apply ${table} ${keyText(bad.key)}: ${reason}`
          : `Cannot apply ${table}: ${reason}`,
      { cause },
    );
    this.name = 'ApplyError';
  }
}

/** `id=…` or `workspace_id=…, id=…`. */
export function keyText(key: Record<string, string>): string {
  return Object.entries(key)
    .map(([column, value]) => `${column}=${value}`)
    .join(', ');
}

/**
 * The first row of `source` (all columns text) holding a value that a column's type cannot
 * hold; with `folded`, only the row each key ends with, as the apply writes it. Runs only
 * after a failure: the statement that failed does not say which row it was on, and an
 * extra pass over every batch would cost the normal path. Columns are tried in order, one
 * query each, over a file the size of one batch or slice.
 */
export async function findBadValue(
  duck: DuckDBConnection,
  source: string,
  columns: ColumnInfo[],
  keys: string[],
  folded: boolean,
): Promise<BadValue | undefined> {
  const rows = folded
    ? `(SELECT * FROM (SELECT * FROM ${source}
         QUALIFY row_number() OVER (PARTITION BY ${keys.join(', ')} ORDER BY _seq DESC) = 1)
        WHERE _op = 'u')`
    : source;
  for (const column of columns) {
    if (column.type === 'VARCHAR') continue;
    const reader = await duck.runAndReadAll(
      `SELECT ${keys.map((k) => `CAST(${k} AS VARCHAR)`).join(', ')}, CAST(${column.name} AS VARCHAR)
       FROM ${rows} WHERE ${column.name} IS NOT NULL AND ${tryCastText(column.name, column)} IS NULL LIMIT 1`,
    );
    const row = reader.getRows()[0] as (string | null)[] | undefined;
    if (!row) continue;
    const value = row[keys.length] ?? '';
    return {
      key: Object.fromEntries(keys.map((k, i) => [k, row[i] ?? ''])),
      column: column.name,
      value: value.length > 200 ? `${value.slice(0, 200)}…` : value,
    };
  }
  return undefined;
}

/** DuckDB's messages go on with the row's text ("Original Line: …"); the first line says what. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
