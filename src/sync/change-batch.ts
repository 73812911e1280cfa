import { appendFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DerivedTables } from '../readmodel/derived-tables.ts';
import { TRACKED_ID_TABLES } from '../readmodel/read-model-status.ts';
import { ApplyError, findBadValue, type BadValue } from './apply-error.ts';
import { asText, castText, readCsv } from './csv-dialect.ts';
import { columnNames, keyColumns, type ColumnInfo } from './copied-columns.ts';
import { type FlushProfile, FlushProfiler } from './flush-profile.ts';
import { LOAD_DIR_PREFIX } from './full-sync.ts';
import { parsePgArray } from './pg-array.ts';

/** A row as PostgreSQL's text: column name -> value, or null. */
export type SourceRow = Record<string, string | null | undefined>;

const QUOTE = 0x22;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const UPSERT = 0x75; // 'u'
const DELETE = 0x64; // 'd'

/**
 * One table's changes as CSV lines `seq,op,<every read-model column>` in arrival order,
 * built as bytes: a value PostgreSQL sent is copied into the line without ever becoming a
 * JavaScript string. Every value is quoted (quotes doubled) and NULL is an empty unquoted
 * field. A delete line carries only the key columns.
 */
export class TableChanges {
  /** Read-model columns, in the order of the CSV. */
  readonly columns: ColumnInfo[];
  /** Per column: a PostgreSQL array, written as JSON for DuckDB's cast. */
  readonly isArray: boolean[];
  readonly keys: string[];
  /** Per column: its position in the key, or -1. */
  readonly keyIndex: number[];
  /** Lines in memory. */
  lines = 0;
  /** Lines moved to `spillFile` (ChangeBatch.spill), which come before those in memory. */
  spilled = 0;
  spillFile: string | undefined;
  /**
   * The ids the lines name, for a table keyed by `id` alone, while they are at most MAX_IDS
   * (null past that, and for other tables): read from the lines as they are written, so the
   * derived parts need not read them back from the change file.
   */
  ids: Set<string> | null;
  private bytes = Buffer.allocUnsafe(1 << 16);
  private length = 0;
  /** The position of the `id` column when the table is keyed by it alone, else -1. */
  private readonly idColumn: number;
  /** The column the next field of the line being written is. */
  private field = 0;

  constructor(
    readonly table: string,
    columns: ColumnInfo[],
    private readonly batch: ChangeBatch,
  ) {
    this.columns = columns;
    this.isArray = columns.map((c) => c.type.endsWith('[]'));
    this.keys = keyColumns(table);
    this.keyIndex = columns.map((c) => this.keys.indexOf(c.name));
    if (this.keyIndex.filter((i) => i >= 0).length !== this.keys.length)
      throw new Error(`The read model's ${table} lacks its key columns`);
    this.idColumn =
      this.keys.length === 1 && this.keys[0] === 'id'
        ? columns.findIndex((c) => c.name === 'id')
        : -1;
    this.ids = this.idColumn >= 0 ? new Set() : null;
  }

  /** Notes the id a line names (its `id` field), up to MAX_IDS of them. */
  private noteId(id: string): void {
    if (!this.ids) return;
    if (this.ids.size >= MAX_IDS) this.ids = null;
    else this.ids.add(id.toLowerCase());
  }

  /** Starts a line: its sequence number in the batch and whether it writes or deletes its key. */
  begin(op: 'upsert' | 'delete'): void {
    this.reserve(24);
    let seq = this.batch.nextSeq();
    let digits = 1;
    for (let power = 10; seq >= power; power *= 10) digits++;
    for (let at = this.length + digits - 1; at >= this.length; at--) {
      this.bytes[at] = 0x30 + (seq % 10);
      seq = Math.floor(seq / 10);
    }
    this.length += digits;
    this.bytes[this.length++] = COMMA;
    this.bytes[this.length++] = op === 'upsert' ? UPSERT : DELETE;
    this.field = 0;
  }

  /** A value given as UTF-8 bytes of `source`. */
  bytesField(source: Buffer, start: number, end: number): void {
    if (this.field++ === this.idColumn) this.noteId(source.toString('utf8', start, end));
    this.reserve(2 * (end - start) + 3);
    const out = this.bytes;
    let at = this.length;
    out[at++] = COMMA;
    out[at++] = QUOTE;
    for (let i = start; i < end; i++) {
      const b = source[i]!;
      out[at++] = b;
      if (b === QUOTE) out[at++] = QUOTE;
    }
    out[at++] = QUOTE;
    this.length = at;
  }

  /** A value given as a string (the change-log path, and arrays converted to JSON). */
  textField(value: string): void {
    if (this.field++ === this.idColumn) this.noteId(value);
    const text = value.includes('"') ? value.replace(/"/g, '""') : value;
    this.reserve(3 * text.length + 3);
    this.bytes[this.length++] = COMMA;
    this.bytes[this.length++] = QUOTE;
    this.length += this.bytes.write(text, this.length, 'utf8');
    this.bytes[this.length++] = QUOTE;
  }

  /** PostgreSQL array text of column `index`, as JSON that DuckDB casts to a list. */
  arrayField(text: string): void {
    this.textField(JSON.stringify(parsePgArray(text)));
  }

  nullField(): void {
    this.field++;
    this.reserve(1);
    this.bytes[this.length++] = COMMA;
  }

  end(): void {
    this.reserve(1);
    this.bytes[this.length++] = NEWLINE;
    this.lines++;
    this.batch.size++;
  }

  /** Writes the row of a change read as text (the change-log follower's path). */
  upsertRow(row: SourceRow): void {
    this.begin('upsert');
    for (const [i, column] of this.columns.entries()) {
      const value = row[column.name];
      if (value === undefined)
        throw new Error(`Change to ${this.table} lacks column ${column.name}`);
      if (value === null) this.nullField();
      else if (this.isArray[i]) this.arrayField(value);
      else this.textField(value);
    }
    this.end();
  }

  /** Deletes the key of `row` (other columns are ignored). */
  deleteKey(row: SourceRow): void {
    this.begin('delete');
    for (const [i, column] of this.columns.entries()) {
      const value = this.keyIndex[i]! >= 0 ? row[column.name] : null;
      if (value === undefined || (value === null && this.keyIndex[i]! >= 0))
        throw new Error(`Delete from ${this.table} lacks key column ${column.name}`);
      if (value === null) this.nullField();
      else this.textField(value);
    }
    this.end();
  }

  reset(): void {
    this.clearMemory();
    this.spilled = 0;
    this.spillFile = undefined;
    this.ids = this.idColumn >= 0 ? new Set() : null;
  }

  /** Forgets the lines in memory (written to the spill file); spilled ones stay. */
  clearMemory(): void {
    this.lines = 0;
    this.length = 0;
  }

  content(): Buffer {
    return this.bytes.subarray(0, this.length);
  }

  /** Bytes of the lines in memory. */
  get memoryBytes(): number {
    return this.length;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + extra) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }
}

/**
 * Changes waiting to be written to DuckDB, per table, in arrival order. Folding happens in
 * DuckDB at flush: per key the last change wins, so a delete then re-insert of one id leaves
 * the new row, and an update that moves a row to another key (a delete line for the old key,
 * then the new row) leaves only the new key.
 */
export class ChangeBatch {
  private readonly changes = new Map<string, TableChanges>();
  private spillDir: string | undefined;
  private spillFiles = 0;
  private spilledLines = 0;
  /** What the flushes since the last `takeChanges` wrote (see ReadModelChanges). */
  private written = new Map<string, Set<string> | null>();
  private seq = 0;
  /** Lines buffered over all tables. */
  size = 0;
  /**
   * What the last flush that wrote something cost, by share (the load of its change files, the
   * apply, each derived part): statements and ms. For the sync's metrics and the benchmarks.
   */
  lastFlush: FlushProfile | undefined;

  /** `derived`: the parts of the read model each flush keeps in step, called in this order. */
  constructor(
    private readonly tables: Map<string, ColumnInfo[]>,
    private readonly derived: readonly DerivedTables[],
  ) {}

  table(name: string): TableChanges {
    let changes = this.changes.get(name);
    if (!changes) {
      const columns = this.tables.get(name);
      if (!columns) throw new Error(`The read model has no table ${name}`);
      changes = new TableChanges(name, columns, this);
      this.changes.set(name, changes);
    }
    return changes;
  }

  nextSeq(): number {
    return this.seq++;
  }

  /** Empties the batch; the TableChanges handed out stay valid (and keep their memory). */
  clear(): void {
    for (const changes of this.changes.values()) changes.reset();
    this.size = 0;
    this.spilledLines = 0;
    this.seq = 0;
    if (this.spillDir)
      void rm(this.spillDir, { recursive: true, force: true }).catch(() => undefined);
    this.spillDir = undefined;
  }

  /**
   * Bytes of the lines held in memory, over all tables (spilled ones are on disk): a batch is
   * flushed past a bound of these as well as of lines, so that a batch of the longest values
   * the store holds stays within memory (docs/sync.md, "Values of any length").
   */
  get memoryBytes(): number {
    let bytes = 0;
    for (const changes of this.changes.values()) bytes += changes.memoryBytes;
    return bytes;
  }

  /** Whether lines are waiting, in memory or spilled. */
  get empty(): boolean {
    return this.size === 0 && this.spilledLines === 0;
  }

  /**
   * Moves the lines in memory to one file per table, keeping their order and sequence
   * numbers, so that a batch larger than memory still folds as one at its flush. The sync
   * folds this way while it retries after a failure (docs/sync.md): a flush in between could
   * write a row that a later change in the same retry corrects.
   */
  async spill(): Promise<void> {
    // Named like a first load's folder, so a load after this process was killed removes it.
    this.spillDir ??= await mkdtemp(path.join(tmpdir(), `${LOAD_DIR_PREFIX}${process.pid}-spill-`));
    for (const changes of this.changes.values()) {
      if (changes.lines === 0) continue;
      // Numbered: a table dropped by a truncate starts a new file, never the old one's tail.
      changes.spillFile ??= path.join(this.spillDir, `${changes.table}-${this.spillFiles++}.csv`);
      await appendFile(changes.spillFile, changes.content());
      changes.spilled += changes.lines;
      this.spilledLines += changes.lines;
      changes.clearMemory();
    }
    this.size = 0;
  }

  /** Drops what is waiting for `table`: a truncate removes those rows anyway. */
  drop(table: string): void {
    const changes = this.changes.get(table);
    if (!changes) return;
    this.size -= changes.lines;
    this.spilledLines -= changes.spilled;
    changes.reset();
  }

  /**
   * Writes the waiting changes inside the connection's open transaction, and empties the
   * batch. A failure is an ApplyError naming the table, the row and the column (docs/sync.md,
   * "When a change cannot be applied"): a value the read model's type cannot hold is found
   * by a cast over the change file; any other failure (of the apply or of a derived part) by
   * applying the batch's rows one at a time (`isolate`). The transaction is rolled back by then.
   */
  async flush(connection: DuckDBConnection): Promise<number> {
    try {
      return await this.write(connection);
    } catch (error) {
      if (error instanceof ApplyError && error.bad) throw error;
      await connection.run('ROLLBACK').catch(() => undefined);
      const found = await this.isolate(connection).catch(() => undefined);
      const cause = error instanceof ApplyError ? (error.cause ?? error) : error;
      if (found) throw new ApplyError(found.table, found.bad, cause);
      throw error;
    }
  }

  /**
   * After a failed flush, with no transaction open: the first row of the batch (per key, as
   * the apply writes it) whose flush fails on its own, each tried in a transaction rolled back
   * after it, and the column that makes it fail (the first whose value, made NULL or else
   * empty, lets it through). At most ISOLATE_ROWS rows are tried, a table at a time; it runs
   * only after a failure, which costs a retry anyway.
   */
  private async isolate(
    duck: DuckDBConnection,
  ): Promise<{ table: string; bad: BadValue } | undefined> {
    if (this.spilledLines > 0) await this.spill();
    const dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-isolate-'));
    const fails = async (table: string, row: SourceRow, op: string) => {
      const one = new ChangeBatch(this.tables, this.derived);
      if (op === 'd') one.table(table).deleteKey(row);
      else one.table(table).upsertRow(row);
      await duck.run('BEGIN TRANSACTION');
      try {
        await one.write(duck);
        return false;
      } catch {
        return true;
      } finally {
        await duck.run('ROLLBACK').catch(() => undefined);
      }
    };
    try {
      let tried = 0;
      for (const changes of this.changes.values()) {
        if (changes.lines === 0 && changes.spilled === 0) continue;
        const file = changes.spillFile ?? path.join(dir, `${changes.table}.csv`);
        if (!changes.spillFile) await writeFile(file, changes.content());
        const keys = changes.keys.join(', ');
        const read = await duck.runAndReadAll(
          `SELECT * EXCLUDE (_seq) FROM ${await changesCsv(file, changes.columns)}
           QUALIFY row_number() OVER (PARTITION BY ${keys} ORDER BY _seq DESC) = 1
           LIMIT ${ISOLATE_ROWS - tried}`,
        );
        const names = read.columnNames();
        for (const values of read.getRows()) {
          tried++;
          const row: SourceRow = {};
          names.forEach((name, i) => (row[name] = values[i] === null ? null : String(values[i])));
          const op = row._op!;
          if (!(await fails(changes.table, row, op))) continue;
          const key = Object.fromEntries(changes.keys.map((k) => [k, row[k] ?? '']));
          const candidates = changes.columns.filter(
            (c) => !changes.keys.includes(c.name) && row[c.name] !== null,
          );
          for (const column of op === 'd' ? [] : candidates) {
            for (const stand of [null, '']) {
              if (!(await fails(changes.table, { ...row, [column.name]: stand }, op))) {
                const value = row[column.name] ?? '';
                return {
                  table: changes.table,
                  bad: {
                    key,
                    column: column.name,
                    value: value.length > 200 ? `${value.slice(0, 200)}…` : value,
                  },
                };
              }
            }
          }
          return { table: changes.table, bad: { key, column: null, value: '' } };
        }
        if (tried >= ISOLATE_ROWS) break;
      }
      return undefined;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The flush itself (see there), without the search for what failed. */
  private async write(connection: DuckDBConnection): Promise<number> {
    let written = 0;
    if (this.empty) return 0;
    const profiler = new FlushProfiler(connection);
    const duck = profiler.connection;
    // A spilled batch is applied from its files whole: the lines still in memory go after.
    if (this.spilledLines > 0) await this.spill();
    const dir = await mkdtemp(path.join(tmpdir(), 'ledgerline-apply-'));
    const derived = this.derived.map((part) => ({ name: part.name, batch: part.batch() }));
    const loaded: string[] = [];
    try {
      for (const changes of this.changes.values()) {
        if (changes.lines === 0 && changes.spilled === 0) continue;
        const file = changes.spillFile ?? path.join(dir, `${changes.table}.csv`);
        if (!changes.spillFile) await writeFile(file, changes.content());
        const csv = await changesCsv(file, changes.columns);
        // The file is parsed once into a temporary table that every reader of the batch scans
        // (the apply and each derived part before and after it: up to seven for a table):
        // each read_csv of even a one-line file cost about 5 ms, a scan of the table about 1.
        const source = `${CHANGES_PREFIX}${changes.table}`;
        const { table } = changes;
        try {
          await profiler.time('load', async () => {
            await duck.run(`CREATE OR REPLACE TEMP TABLE ${source} AS SELECT * FROM ${csv}`);
            loaded.push(source);
            await this.noteWritten(duck, changes, source);
          });
          const ids = changes.ids ?? undefined;
          for (const { name, batch } of derived)
            await profiler.time(name, () => batch.beforeApply(duck, table, source, ids));
          await profiler.time('apply', () => applyTable(duck, changes, source));
          for (const { name, batch } of derived)
            await profiler.time(name, async () => batch.afterApply?.(duck, table, source, ids));
        } catch (error) {
          // The rollback drops the temporary table: the failing row is looked for in the file.
          throw await applyError(connection, changes, csv, error);
        }
        written += changes.lines + changes.spilled;
      }
      // The derived parts follow their rows in the same transaction.
      for (const { name, batch } of derived) await profiler.time(name, () => batch.finish(duck));
      await profiler.time('load', async () => {
        for (const table of loaded) await duck.run(`DROP TABLE ${table}`);
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    this.clear();
    this.lastFlush = profiler.profile();
    return written;
  }

  /** Marks a table changed whole (a truncate). */
  touchAll(table: string): void {
    this.written.set(table, null);
  }

  /** What was written since the last call, to report with the commit that makes it visible. */
  takeChanges(): Map<string, ReadonlySet<string> | null> {
    const written = this.written;
    this.written = new Map();
    return written;
  }

  /** Forgets what was written (the transaction was rolled back). */
  forgetChanges(): void {
    this.written = new Map();
  }

  private async noteWritten(duck: DuckDBConnection, changes: TableChanges, source: string) {
    const { table, keys } = changes;
    const ids = this.written.has(table) ? this.written.get(table)! : new Set<string>();
    if (ids === null) return;
    if (!TRACKED_ID_TABLES.has(table) || keys.length !== 1 || keys[0] !== 'id') {
      this.written.set(table, null);
      return;
    }
    if (changes.ids) {
      for (const id of changes.ids) ids.add(id);
    } else {
      const read = await duck.runAndReadAll(`SELECT DISTINCT id FROM ${source}`);
      for (const [id] of read.getRows()) ids.add(String(id));
    }
    this.written.set(table, ids);
  }
}

/**
 * Applies one table's change file: one DELETE removes every key the file touches, and one
 * INSERT adds, per key, the row of its last change when that change is not a delete (each
 * line's own row when no key has two lines). Both read the file with DuckDB's CSV reader, all
 * text; only the rows written are converted to the read model's types, so a value that a later
 * change in the batch replaced is never converted.
 */
async function applyTable(duck: DuckDBConnection, changes: TableChanges, source: string) {
  const { table, columns, keys } = changes;
  const typeOf = new Map(columns.map((c) => [c.name, c.type]));
  const values = columns.map((c) => castText(c.name, c)).join(', ');
  // Each line names another id (a few changes, the common batch): nothing to fold, and the
  // DELETE finds the ids as literals (about 1.5 ms less than the fold on a one-row batch).
  if (
    changes.ids &&
    typeOf.get('id') === 'UUID' &&
    changes.ids.size === changes.lines + changes.spilled
  ) {
    const ids = [...changes.ids].map((id) => {
      if (!UUID_FORM.test(id)) throw new Error(`Not a UUID: ${id}`);
      return `'${id}'::UUID`;
    });
    await duck.run(`DELETE FROM ${table} WHERE id IN (${ids.join(', ')})`);
    await duck.run(
      `INSERT INTO ${table} (${columnNames(columns)}) SELECT ${values} FROM ${source} WHERE _op = 'u'`,
    );
    return;
  }
  const match = keys.map((k) => `t.${k} = CAST(k.${k} AS ${typeOf.get(k)!})`).join(' AND ');
  await duck.run(
    `DELETE FROM ${table} t USING (SELECT DISTINCT ${keys.join(', ')} FROM ${source}) k WHERE ${match}`,
  );
  await duck.run(
    `INSERT INTO ${table} (${columnNames(columns)}) SELECT ${values} FROM (
       SELECT * FROM ${source}
       QUALIFY row_number() OVER (PARTITION BY ${keys.join(', ')} ORDER BY _seq DESC) = 1
     ) WHERE _op = 'u'`,
  );
}

/**
 * The failure of one table's apply, with the row that held a value the read model cannot
 * take when there is one. DuckDB has aborted the transaction after the failed statement (and
 * the caller abandons it whatever failed); rolling it back here lets this connection read the
 * change file once more to find the row.
 */
async function applyError(
  duck: DuckDBConnection,
  changes: TableChanges,
  source: string,
  error: unknown,
): Promise<ApplyError> {
  await duck.run('ROLLBACK').catch(() => undefined);
  const bad = await findBadValue(duck, source, changes.columns, changes.keys, true).catch(
    () => undefined,
  );
  return new ApplyError(changes.table, bad, error);
}

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Ids of a table's lines noted at most (TableChanges.ids): more than a derived part refreshes in
 * process (200 entries), so a batch past it costs one statement more to read them from its
 * change file, where its refresh takes far longer anyway.
 */
const MAX_IDS = 1000;

/** The temporary tables a flush reads its change files into (one per table, dropped at its end). */
const CHANGES_PREFIX = 'sync_changes_';

/** Rows of a failed batch tried one at a time at most (ChangeBatch.isolate). */
const ISOLATE_ROWS = 500;

/** The change file as text columns; an unquoted empty field is NULL, a quoted one the empty string. */
async function changesCsv(file: string, columns: ColumnInfo[]): Promise<string> {
  return readCsv(file, (await stat(file)).size, [
    { name: '_seq', type: 'BIGINT' },
    { name: '_op', type: 'VARCHAR' },
    ...asText(columns),
  ]);
}
