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
    const key = keyColumns(change.table)
      .map((k) => change.row[k] ?? '')
      .join('\u0000');
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

const prepared = new WeakMap<DuckDBConnection, Set<string>>();

/** Staging tables of plain text, one pair per table and connection: touched keys, and rows to write. */
async function stagingFor(
  duck: DuckDBConnection,
  table: string,
  columns: ColumnInfo[],
): Promise<void> {
  let done = prepared.get(duck);
  if (!done) {
    done = new Set();
    prepared.set(duck, done);
  }
  if (done.has(table)) return;
  const keys = keyColumns(table);
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE _keys_${table} (${keys.map((k) => `${k} VARCHAR`).join(', ')})`,
  );
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE _rows_${table} (${columns.map((c) => `${c.name} VARCHAR`).join(', ')})`,
  );
  done.add(table);
}

async function applyTable(
  duck: DuckDBConnection,
  table: string,
  columns: ColumnInfo[],
  rows: Map<string, SourceRow | null>,
): Promise<void> {
  await stagingFor(duck, table, columns);
  const keys = keyColumns(table);
  await duck.run(`DELETE FROM _keys_${table}`);
  await duck.run(`DELETE FROM _rows_${table}`);
  const keyAppender = await duck.createAppender(`_keys_${table}`, 'main', 'temp');
  const rowAppender = await duck.createAppender(`_rows_${table}`, 'main', 'temp');
  let upserts = 0;
  for (const [key, row] of rows) {
    for (const part of key.split('\u0000')) keyAppender.appendVarchar(part);
    keyAppender.endRow();
    if (row === null) continue;
    upserts++;
    for (const column of columns) {
      const value = row[column.name];
      if (value === undefined) throw new Error(`Change to ${table} lacks column ${column.name}`);
      if (value === null) rowAppender.appendNull();
      else
        rowAppender.appendVarchar(
          column.type.endsWith('[]') ? JSON.stringify(parsePgArray(value)) : value,
        );
    }
    rowAppender.endRow();
  }
  keyAppender.closeSync();
  rowAppender.closeSync();

  const typeOf = new Map(columns.map((c) => [c.name, c.type]));
  const match = keys.map((k) => `t.${k} = CAST(k.${k} AS ${typeOf.get(k)!})`).join(' AND ');
  await duck.run(`DELETE FROM ${table} t USING _keys_${table} k WHERE ${match}`);
  if (upserts > 0) {
    const values = columns.map((c) => `CAST(${c.name} AS ${c.type})`).join(', ');
    await duck.run(`INSERT INTO ${table} SELECT ${values} FROM _rows_${table}`);
  }
}
