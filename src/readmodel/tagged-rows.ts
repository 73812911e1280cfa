import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Several small reads in one statement: each branch's rows tagged with its name, every column
 * as text (NULL kept), grouped by tag when read. The in-process refreshes of the derived
 * tables (fact-refresh.ts, payable-refresh.ts) read what a few changed entries need this way,
 * one statement instead of one per table.
 */
export type TaggedRows = Map<string, (string | null)[][]>;

/** One branch: its tag, the expressions it reads, and its `FROM …` (with any WHERE). */
export type Branch = [tag: string, columns: string[], from: string];

/**
 * The rows of `table` whose `column` is one of `keys` (a list of SQL literals), read through
 * the column's index (docs/sync.md, "Lookups by id") and named `name` for the branches to read
 * from. DuckDB answers from an index only a scan whose one filter is on the indexed column:
 * `WHERE id IN (…) AND deleted_at IS NULL`, or the same filter beside a join, scans the whole
 * table (measured on 10M entries: 270 ms against 2 ms). So the keyed rows are read alone, as a
 * materialized common table expression (with their rowids), and any other condition or join
 * applies to them.
 */
export interface KeyedScan {
  name: string;
  table: string;
  column: string;
  keys: string;
}

/** The statement reading `branches` (UNION ALL, each padded to the widest) over `scans`. */
export function taggedSql(branches: readonly Branch[], scans: readonly KeyedScan[] = []): string {
  const width = Math.max(...branches.map(([, columns]) => columns.length));
  const union = branches
    .map(([tag, columns, from]) => {
      const cells = columns.map((c) => `CAST(${c} AS VARCHAR)`);
      while (cells.length < width) cells.push('NULL');
      return `SELECT '${tag}' AS tag, ${cells.join(', ')} ${from}`;
    })
    .join('\nUNION ALL ');
  if (scans.length === 0) return union;
  const ctes = scans.map(
    (s) =>
      `${s.name} AS MATERIALIZED (SELECT rowid, * FROM ${s.table} WHERE ${s.column} IN (${s.keys}))`,
  );
  return `WITH ${ctes.join(',\n')}\n${union}`;
}

/** Runs a statement whose rows are (tag, columns…), such as taggedSql's, grouped by tag. */
export async function readTagged(duck: DuckDBConnection, text: string): Promise<TaggedRows> {
  const rows: TaggedRows = new Map();
  for (const [tag, ...values] of (await duck.runAndReadAll(text)).getRows()) {
    const list = rows.get(String(tag));
    const row = values.map((v) => (v === null ? null : String(v)));
    if (list) list.push(row);
    else rows.set(String(tag), [row]);
  }
  return rows;
}

/** `items` grouped by `key`, each group in the items' order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(key(item));
    if (list) list.push(item);
    else map.set(key(item), [item]);
  }
  return map;
}
