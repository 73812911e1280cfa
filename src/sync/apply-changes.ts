import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnInfo } from './full-sync.ts';
import { parsePgArray } from './pg-array.ts';

/** A row as logical replication sends it: column name -> PostgreSQL text, or null. */
export type SourceRow = Record<string, string | null | undefined>;

export type Change =
  | { op: 'upsert'; table: string; row: SourceRow }
  | { op: 'delete'; table: string; row: SourceRow }
  | { op: 'truncate'; table: string };

/** The key the read model matches changes on: each table's PostgreSQL primary key. */
const KEYS: Record<string, string[]> = {
  users: ['workspace_id', 'id'],
  members: ['workspace_id', 'user_id'],
  project_members: ['project_id', 'user_id'],
  team_payment_allocations: ['payment_id', 'bill_id'],
};
export const keyColumns = (table: string): string[] => KEYS[table] ?? ['id'];

/** A row's key as one string, for folding and matching changes. */
export function keyOf(table: string, row: SourceRow): string {
  return keyColumns(table)
    .map((k) => row[k] ?? '')
    .join('\u0000');
}

/**
 * Changes waiting to be written to DuckDB, folded per key in arrival order: the last
 * change of a key wins, so a delete then re-insert of one id leaves the new row, and an
 * update that moves a row to another key deletes the old key and writes the new one.
 */
export class ChangeBuffer {
  private readonly tables = new Map<string, Map<string, SourceRow | null>>();
  size = 0;

  add(change: Change): void {
    if (change.op === 'truncate')
      throw new Error('Truncate must be applied on its own (flush first)');
    let rows = this.tables.get(change.table);
    if (!rows) {
      rows = new Map();
      this.tables.set(change.table, rows);
    }
    const key = keyOf(change.table, change.row);
    // Delete-then-set keeps the map's order equal to the order of the last change per key.
    rows.delete(key);
    rows.set(key, change.op === 'upsert' ? change.row : null);
    this.size++;
  }

  clear(): void {
    this.tables.clear();
    this.size = 0;
  }

  /** Writes the buffered changes inside the connection's open transaction, and empties the buffer. */
  async flush(duck: DuckDBConnection, tables: Map<string, ColumnInfo[]>): Promise<number> {
    let written = 0;
    for (const [table, rows] of this.tables) {
      const columns = tables.get(table);
      if (!columns) throw new Error(`The read model has no table ${table}`);
      await applyTable(duck, table, columns, rows);
      written += rows.size;
    }
    this.tables.clear();
    this.size = 0;
    return written;
  }
}

/**
 * Writes one table's folded changes: the touched keys and the rows to write go to two CSV
 * files (all text, as PostgreSQL sent it), then one DELETE removes every touched key and one
 * INSERT casts and adds the rows. Writing CSV in JavaScript and letting DuckDB's reader
 * parse it is several times faster than an Appender call per value.
 */
async function applyTable(
  duck: DuckDBConnection,
  table: string,
  columns: ColumnInfo[],
  rows: Map<string, SourceRow | null>,
): Promise<void> {
  const keys = keyColumns(table);
  const keyLines: string[] = [];
  const rowLines: string[] = [];
  for (const [key, row] of rows) {
    keyLines.push(key.split('\u0000').map(csvField).join(','));
    if (row === null) continue;
    rowLines.push(
      columns
        .map((column) => {
          const value = row[column.name];
          if (value === undefined)
            throw new Error(`Change to ${table} lacks column ${column.name}`);
          if (value === null) return '';
          return csvField(column.type.endsWith('[]') ? JSON.stringify(parsePgArray(value)) : value);
        })
        .join(','),
    );
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-apply-'));
  try {
    const keyFile = path.join(dir, 'keys.csv');
    const rowFile = path.join(dir, 'rows.csv');
    await writeFile(keyFile, `${keyLines.join('\n')}\n`);
    const typeOf = new Map(columns.map((c) => [c.name, c.type]));
    const match = keys.map((k) => `t.${k} = CAST(k.${k} AS ${typeOf.get(k)!})`).join(' AND ');
    await duck.run(`DELETE FROM ${table} t USING ${textCsv(keyFile, keys)} k WHERE ${match}`);
    if (rowLines.length > 0) {
      await writeFile(rowFile, `${rowLines.join('\n')}\n`);
      const values = columns.map((c) => `CAST(${c.name} AS ${c.type})`).join(', ');
      await duck.run(
        `INSERT INTO ${table} SELECT ${values} FROM ${textCsv(
          rowFile,
          columns.map((c) => c.name),
        )}`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A CSV file of text columns; an unquoted empty field is NULL, a quoted one the empty string. */
function textCsv(file: string, names: string[]): string {
  const columns = names.map((n) => `'${n}': 'VARCHAR'`).join(', ');
  return `read_csv('${file.replace(/'/g, "''")}', header = false, allow_quoted_nulls = false, auto_detect = false, delim = ',', quote = '"', escape = '"', columns = {${columns}})`;
}

function csvField(value: string): string {
  return `"${value.includes('"') ? value.replace(/"/g, '""') : value}"`;
}
