import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DerivedBatch, DerivedTables } from '../readmodel/derived-tables.ts';
import type { JournalPosition as Position } from './manifest.ts';
import type { JournalSource } from './export-reports.ts';
import { sql, type SqlBool } from 'kysely';
import { runCompiled } from '../readmodel/query-builder.ts';
import { exportQueries } from './export-db.ts';
import {
  COPY_OPTIONS,
  copyStatement,
  type ExportFormat,
  type KeyRows,
  type RowFilter,
} from './export-writer.ts';

export type JournalPosition = Position;

/**
 * The export journal (docs/exports.md, "Incremental"): which rows of the exported tables each
 * sync batch changed, written by the sync in the same DuckDB transaction as the rows
 * (ChangeBatch.flush, both sync modes), numbered by a change counter. A first load or a
 * truncate starts a new journal under a new load id: a schedule whose previous run read
 * another load id exports everything again.
 *
 * Keys are text: `id` for tables keyed by id, `payment_id/bill_id` for allocations. A key is
 * journaled for its own table's changes and for the changes that alter what its export row
 * shows (a bill's figures follow its lines, allocations and payments; a line shows its bill's
 * number and currency; an allocation its payment's date and status and its bill's number).
 */

/** Read-model tables of the journal: kept by the sync, never copied from PostgreSQL. */
export const EXPORT_JOURNAL_TABLES = [
  'export_journal',
  'export_journal_state',
  'export_journal_touched',
] as const;

/** For each exported table: the journal key of its rows as SQL over alias `t`. */
const KEY_SQL: Record<string, string> = {
  invoices: 'CAST(t.id AS VARCHAR)',
  time_entries: 'CAST(t.id AS VARCHAR)',
  team_bills: 'CAST(t.id AS VARCHAR)',
  team_bill_lines: 'CAST(t.id AS VARCHAR)',
  team_payments: 'CAST(t.id AS VARCHAR)',
  team_payment_allocations: "CAST(t.payment_id AS VARCHAR) || '/' || CAST(t.bill_id AS VARCHAR)",
};

/** The ids a change file names (`source`: columns as text), as UUIDs. */
const idsOf = (source: string, column = 'id') =>
  `SELECT DISTINCT CAST(${column} AS UUID) FROM ${source} WHERE ${column} IS NOT NULL`;

/**
 * Rows of other exports that a change of a table alters, as (table_name, key) over the read
 * model as it stands; run before and after the change is applied, so both the old and the new
 * row's references count.
 */
const DEPENDENTS: Record<string, ((source: string) => string)[]> = {
  team_bill_lines: [
    (s) =>
      `SELECT 'team_bills', CAST(bill_id AS VARCHAR) FROM team_bill_lines WHERE id IN (${idsOf(s)})`,
  ],
  team_payment_allocations: [
    (s) =>
      `SELECT 'team_bills', CAST(bill_id AS VARCHAR) FROM team_payment_allocations
       WHERE payment_id IN (${idsOf(s, 'payment_id')})`,
  ],
  team_payments: [
    (s) =>
      `SELECT 'team_bills', CAST(bill_id AS VARCHAR) FROM team_payment_allocations
       WHERE payment_id IN (${idsOf(s)})`,
    (s) =>
      `SELECT 'team_payment_allocations', ${KEY_SQL.team_payment_allocations}
       FROM team_payment_allocations t WHERE t.payment_id IN (${idsOf(s)})`,
  ],
  team_bills: [
    (s) =>
      `SELECT 'team_bill_lines', CAST(id AS VARCHAR) FROM team_bill_lines WHERE bill_id IN (${idsOf(s)})`,
    (s) =>
      `SELECT 'team_payment_allocations', ${KEY_SQL.team_payment_allocations}
       FROM team_payment_allocations t WHERE t.bill_id IN (${idsOf(s)})`,
  ],
};

/** A UUID's text as KEY_SQL makes it (lowercase), checked: it goes into a statement. */
function uuidText(id: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id))
    throw new Error(`Not a UUID: ${id}`);
  return id;
}

/** The key of a change file's row (columns as text), as KEY_SQL makes it from a table row. */
const sourceKey = (table: string) =>
  table === 'team_payment_allocations'
    ? "CAST(CAST(t.payment_id AS UUID) AS VARCHAR) || '/' || CAST(CAST(t.bill_id AS UUID) AS VARCHAR)"
    : 'CAST(CAST(t.id AS UUID) AS VARCHAR)';

/**
 * Collects the journal keys of one sync flush, and numbers them in `export_journal` at the end
 * of the flush, inside the sync's transaction. A change file's own keys are read from the file
 * at the end (the flush keeps it until then); the keys of other rows it alters are looked up
 * into `export_journal_touched` before and after it is applied.
 */
export class ExportJournalUpdate implements DerivedBatch {
  /** SELECTs of (table_name, key) over the change files: their own keys. */
  private readonly own: string[] = [];
  /** Own keys known from the lines (the ids of a table keyed by id), as (table_name, key) rows. */
  private readonly known: string[] = [];
  /** Whether export_journal_touched holds keys. */
  private touched = false;

  /** Before a change file of `table` is applied: the rows it replaces still show their links. */
  async beforeApply(
    duck: DuckDBConnection,
    table: string,
    source: string,
    ids?: ReadonlySet<string>,
  ): Promise<void> {
    if (KEY_SQL[table] !== undefined) {
      if (ids && table !== 'team_payment_allocations')
        for (const id of ids) this.known.push(`('${table}', '${uuidText(id)}')`);
      else this.own.push(`SELECT '${table}', ${sourceKey(table)} FROM ${source} t`);
    }
    await this.dependents(duck, table, source);
  }

  /** After it is applied: what the new rows link to. */
  async afterApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    await this.dependents(duck, table, source);
  }

  /**
   * After every table of the flush is applied: numbers its keys with the next change number,
   * in one MERGE (a key journaled before takes the new number, a new key is added).
   */
  async finish(duck: DuckDBConnection): Promise<void> {
    if (this.own.length === 0 && this.known.length === 0 && !this.touched) return;
    const changeNo = await nextChangeNo(duck);
    const keys = [...this.own];
    if (this.touched) keys.push('SELECT table_name, key FROM export_journal_touched');
    const known = `(VALUES ${this.known.join(', ')}) k(table_name, key)`;
    if (this.known.length > 0) keys.push(`SELECT * FROM ${known}`);
    await duck.run(
      `MERGE INTO export_journal j
       USING ${
         keys.length === 1 && this.known.length > 0
           ? known
           : `(SELECT DISTINCT * FROM (${keys.join(' UNION ALL ')}) k(table_name, key)) k`
       }
       ON j.table_name = k.table_name AND j.key = k.key
       WHEN MATCHED THEN UPDATE SET change_no = $change_no
       WHEN NOT MATCHED THEN INSERT VALUES (k.table_name, k.key, $change_no)`,
      { change_no: changeNo },
    );
    if (this.touched) await duck.run('DELETE FROM export_journal_touched');
    this.own.length = 0;
    this.known.length = 0;
    this.touched = false;
  }

  private async dependents(duck: DuckDBConnection, table: string, source: string) {
    for (const dependent of DEPENDENTS[table] ?? []) {
      await duck.run(`INSERT INTO export_journal_touched ${dependent(source)}`);
      this.touched = true;
    }
  }
}

/**
 * Counts one more batch and returns its number: one statement on every batch but the first of
 * a journal that has no state row yet (a read model loaded before the journal existed).
 */
async function nextChangeNo(duck: DuckDBConnection): Promise<number> {
  const rows = (
    await duck.runAndReadAll(
      'UPDATE export_journal_state SET change_no = change_no + 1 RETURNING change_no',
    )
  ).getRows();
  if (rows.length > 0) return Number(rows[0]![0]);
  await duck.run('INSERT INTO export_journal_state VALUES ($id, 1)', { id: randomUUID() });
  return 1;
}

/**
 * Starts a new journal (a first load or a truncate: the read model's rows were replaced, so no
 * earlier position says what changed). Inside the transaction that replaces them.
 */
export async function resetExportJournal(duck: DuckDBConnection): Promise<void> {
  await duck.run('DELETE FROM export_journal');
  await duck.run('DELETE FROM export_journal_touched');
  await duck.run('DELETE FROM export_journal_state');
  await duck.run('INSERT INTO export_journal_state VALUES ($id, 0)', { id: randomUUID() });
}

/**
 * The export journal as the sync keeps it (src/readmodel/derived-tables.ts): a rebuild starts
 * a new journal, and each flush that changed an exported row counts one more change number.
 */
export const exportJournal: DerivedTables = {
  name: 'export-journal',
  tables: EXPORT_JOURNAL_TABLES,
  sources: Object.fromEntries(
    EXPORT_JOURNAL_TABLES.map((table) => [
      table,
      [...new Set([...Object.keys(KEY_SQL), ...Object.keys(DEPENDENTS)])].sort(),
    ]),
  ),
  sqlDir: path.join(import.meta.dirname, 'sql'),
  rebuild: resetExportJournal,
  batch: () => new ExportJournalUpdate(),
};

/** Where the journal stands (a read model never loaded has load id `none`). */
export async function journalPosition(duck: DuckDBConnection): Promise<JournalPosition> {
  const row = (
    await duck.runAndReadAll('SELECT load_id, change_no FROM export_journal_state LIMIT 1')
  ).getRows()[0];
  return row
    ? { loadId: String(row[0]), changeNo: Number(row[1]) }
    : { loadId: 'none', changeNo: 0 };
}

/** Only the report's rows whose journal key changed after `since` (an incremental run). */
export function changedSince(journal: JournalSource, since: JournalPosition): RowFilter {
  // A query embedded in `sql` is written in parentheses.
  return sql<SqlBool>`${sql.raw(journal.key)} IN ${changedKeys(journal, since)}`;
}

/** The journal keys of `journal`'s table changed after `since`. */
function changedKeys(journal: JournalSource, since: JournalPosition) {
  return exportQueries
    .selectFrom('export_journal')
    .select('key')
    .where('table_name', '=', journal.table)
    .where('change_no', '>', since.changeNo);
}

/**
 * Writes the keys changed after `since` that the export no longer has (deleted, soft-deleted,
 * or out of its range or plan now), sorted, one `key` column; returns how many. `current` is
 * the SELECT of the keys the export has now (exportKeySelect).
 */
export async function writeDeletedSince(
  duck: DuckDBConnection,
  journal: JournalSource,
  since: JournalPosition,
  format: ExportFormat,
  file: string,
  current: KeyRows,
): Promise<number> {
  const gone = changedKeys(journal, since)
    .where('key', 'not in', exportQueries.selectFrom(current.as('c')).select('c.export_key'))
    .orderBy('key');
  const reader = await runCompiled(duck, copyStatement(gone, file, COPY_OPTIONS[format]));
  return Number(reader.getRows()[0]?.[0] ?? 0);
}
