import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBInstance } from '@duckdb/node-api';
import { allCurrencyScales } from '../money/currencies.ts';
import type { ReadModelPart } from './derived-tables.ts';
import { ReadGate } from './read-gate.ts';

const DUCKDB_SQL_DIR = path.resolve(import.meta.dirname, '../../sql/duckdb');

export interface ReadModel {
  instance: DuckDBInstance;
  /** Holds reads that have not started while the sync writes a batch (read-gate.ts). */
  gate: ReadGate;
  /**
   * Creates the indexes of every indexes.sql (the copied tables' and each part's) where they
   * are missing. A load that replaces every row drops them first (dropIndexes) and calls this
   * once its rows are in: DuckDB builds an index from a table's rows about twice as fast as
   * it keeps one up to date row by row (docs/sync.md, "Lookups by id").
   */
  createIndexes(connection: DuckDBConnection): Promise<void>;
  /**
   * Makes the read model anew, empty, as a file of another version is made: every table and
   * view dropped and created again, with the indexes, macros and views. A reload starts here:
   * deleting the rows of a 10M-entry read model before loading it again ran out of its memory,
   * where dropping the tables frees them whole.
   */
  makeAnew(connection: DuckDBConnection): Promise<void>;
  /** A connection for one reader or writer; DuckDB gives each its own MVCC snapshot per transaction. */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

/**
 * Opens (creating when missing) the DuckDB read model at `file` (`:memory:` for a throw-away
 * one): the copied tables of sql/duckdb/tables.sql and each part's tables (its `sqlDir`), the
 * indexes of each indexes.sql, the shared macros, what each part installs (the search's folding and
 * macros), the views of sql/duckdb/views/ and of each part, and the currency table. `parts` are
 * the read model's parts (src/cli/derived-tables.ts): the read model names none of them.
 */
export async function openReadModel(
  file: string,
  parts: readonly ReadModelPart[],
  options: { threads?: number; memoryLimit?: string } = {},
): Promise<ReadModel> {
  if (file !== ':memory:') await mkdir(path.dirname(file), { recursive: true });
  const sqlDirs = [DUCKDB_SQL_DIR, ...parts.flatMap((part) => part.sqlDir ?? [])];
  const sqlFiles = (name: string) =>
    Promise.all(sqlDirs.map((dir) => ifExists(readFile(path.join(dir, name), 'utf8')))).then(
      (texts) => texts.filter((text) => text !== undefined),
    );
  // Each part's tables.sql, then the tables it makes in code, in the parts' order.
  const tablesSql = async () => {
    const texts = [await readFile(path.join(DUCKDB_SQL_DIR, 'tables.sql'), 'utf8')];
    for (const part of parts) {
      if (part.sqlDir) {
        const text = await ifExists(readFile(path.join(part.sqlDir, 'tables.sql'), 'utf8'));
        if (text !== undefined) texts.push(text);
      }
      if (part.generatedSql?.tables) texts.push(part.generatedSql.tables);
    }
    return texts;
  };
  const indexSql = await sqlFiles('indexes.sql');
  const createIndexes = async (duck: DuckDBConnection) => {
    for (const text of indexSql) await duck.run(text);
  };
  const instance = await DuckDBInstance.create(file, {
    threads: String(options.threads ?? 2),
    // DuckDB would take 80% of RAM by default; the server shares the machine, and DuckDB
    // spills to disk past this.
    memory_limit: options.memoryLimit ?? '1GB',
    preserve_insertion_order: 'false',
    checkpoint_threshold: '256MB',
  });
  const definitions = await readDefinitions(
    sqlDirs,
    parts.flatMap((part) => part.generatedSql?.views ?? []),
  );
  const tables = await tablesSql();
  const install = async (connection: DuckDBConnection, anew: boolean) => {
    await ensureTables(connection, tables, anew);
    await createIndexes(connection);
    // The macros, views and currencies stay in the file: made again only when they changed
    // (docs/sync.md, "Start-up").
    const made = await holdsDefinitions(connection, definitions.version);
    if (!made) await connection.run(definitions.macros);
    for (const part of parts) await part.install?.(connection);
    if (!made) {
      await createViews(connection, definitions.views);
      await seedCurrencies(connection);
      await recordDefinitions(connection, definitions.version);
    }
  };
  const connection = await instance.connect();
  try {
    await install(connection, false);
  } finally {
    connection.closeSync();
  }
  return {
    instance,
    gate: new ReadGate(),
    createIndexes,
    makeAnew: async (connection) => install(connection, true),
    connect: () => instance.connect(),
    close: () => instance.closeSync(),
  };
}

/** Drops every index of the read model (ReadModel.createIndexes makes them again). */
export async function dropIndexes(connection: DuckDBConnection): Promise<void> {
  const indexes = await connection.runAndReadAll(
    "SELECT index_name FROM duckdb_indexes() WHERE database_name = current_database() AND schema_name = 'main'",
  );
  for (const [index] of indexes.getRows())
    await connection.run(`DROP INDEX IF EXISTS "${String(index)}"`);
}

/**
 * The read model is derived data: when its tables' SQL changes (sql/duckdb/tables.sql or a
 * part's), a file made by an older version is dropped and made anew (the next sync loads it),
 * rather than migrated. `tablesSql`: the copied tables' SQL first, then each part's.
 */
async function ensureTables(
  connection: DuckDBConnection,
  tablesSql: string[],
  anew = false,
): Promise<void> {
  const hash = createHash('sha256');
  for (const text of tablesSql) hash.update(text).update('\0');
  const version = hash.digest('hex');
  await connection.run(
    'CREATE TABLE IF NOT EXISTS read_model_meta (tables_sha256 VARCHAR NOT NULL)',
  );
  const current = (
    await connection.runAndReadAll('SELECT tables_sha256 FROM read_model_meta')
  ).getRows()[0]?.[0];
  if (current === version && !anew) return;
  const tables = await connection.runAndReadAll(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' AND table_name <> 'read_model_meta'",
  );
  for (const [table] of tables.getRows())
    await connection.run(`DROP TABLE IF EXISTS "${String(table)}" CASCADE`);
  // Views are made anew after the tables (createViews); an old one may hold a name that is now
  // a table's (team_bill_figures was a view).
  const views = await connection.runAndReadAll(
    "SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal",
  );
  for (const [view] of views.getRows())
    await connection.run(`DROP VIEW IF EXISTS "${String(view)}"`);
  for (const text of tablesSql) await connection.run(text);
  // The views went with the tables: the definitions are made again (holdsDefinitions).
  await connection.run('COMMENT ON TABLE read_model_meta IS NULL');
  await connection.run('DELETE FROM read_model_meta');
  await connection.run('INSERT INTO read_model_meta VALUES ($version)', { version });
}

/** What the read model defines over its tables, and their version. */
interface Definitions {
  macros: string;
  views: { file: string; sql: string }[];
  /** The SHA-256 of the macros, the views (file names and text) and the currencies. */
  version: string;
}

/**
 * The shared macros (sql/duckdb/macros.sql), the views of the `views/` folders of `sqlDirs`,
 * one view or macro per file, named after it, and the views parts make in code (`generated`).
 */
async function readDefinitions(
  sqlDirs: string[],
  generated: readonly { file: string; sql: string }[],
): Promise<Definitions> {
  const macros = await readFile(path.join(DUCKDB_SQL_DIR, 'macros.sql'), 'utf8');
  const files: string[] = [];
  for (const dir of sqlDirs) {
    const views = path.join(dir, 'views');
    const names = (await ifExists(readdir(views))) ?? [];
    files.push(...names.filter((f) => f.endsWith('.sql')).map((f) => path.join(views, f)));
  }
  const views = [
    ...(await Promise.all(
      files.map(async (f) => ({ file: path.basename(f), sql: await readFile(f, 'utf8') })),
    )),
    ...generated,
  ].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const hash = createHash('sha256').update(macros).update('\0');
  for (const view of views) hash.update(view.file).update('\0').update(view.sql).update('\0');
  hash.update(JSON.stringify([...allCurrencyScales()]));
  return { macros, views, version: hash.digest('hex') };
}

// Which macros and views the catalog holds, and the comment on each.
const CATALOG_OBJECTS = `
  SELECT 'MACRO' AS kind, function_name AS name, comment FROM duckdb_functions()
  WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
    AND function_type = 'macro'
  UNION ALL
  SELECT 'MACRO TABLE', function_name, comment FROM duckdb_functions()
  WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
    AND function_type = 'table_macro'
  UNION ALL
  SELECT 'VIEW', view_name, comment FROM duckdb_views()
  WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal`;

/**
 * Whether the read model holds the definitions of `version`, as recordDefinitions left them:
 * read_model_meta's comment is the version (none once the tables were made anew, and with
 * them the views), every macro and view carries it as its comment, and the currencies are this
 * code's. DuckDB drops an object's comment when it is made again, so the definitions of other
 * code (an older checkout opening the same file makes its own each time and records nothing)
 * show as objects without it.
 */
async function holdsDefinitions(connection: DuckDBConnection, version: string): Promise<boolean> {
  const meta = await connection.runAndReadAll(
    "SELECT comment FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'read_model_meta'",
  );
  if (meta.getRows()[0]?.[0] !== version) return false;
  const objects = await connection.runAndReadAll(
    `SELECT count(*) FROM (${CATALOG_OBJECTS}) WHERE comment IS DISTINCT FROM $version`,
    { version },
  );
  if (objects.getRows()[0]?.[0] !== 0n) return false;
  const currencies = await connection.runAndReadAll(
    'SELECT code, scale FROM currencies ORDER BY code',
  );
  const expected = [...allCurrencyScales()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(currencies.getRows()) === JSON.stringify(expected);
}

/** Marks every macro and view, and read_model_meta, as made at `version` (holdsDefinitions). */
async function recordDefinitions(connection: DuckDBConnection, version: string): Promise<void> {
  // COMMENT takes no parameter: the version is hex digits and each name is quoted as an
  // identifier, neither of which can end its quotes.
  if (!/^[0-9a-f]{64}$/.test(version)) throw new Error(`Not a SHA-256: ${version}`);
  const objects = (await connection.runAndReadAll(CATALOG_OBJECTS)).getRows();
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const [kind, name] of objects) {
      const identifier = `"${String(name).replaceAll('"', '""')}"`;
      await connection.run(`COMMENT ON ${String(kind)} ${identifier} IS '${version}'`);
    }
    await connection.run(`COMMENT ON TABLE read_model_meta IS '${version}'`);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Creates every view. Views may use each other, across parts too; rather than keep an order by
 * hand, a view whose dependency is not there yet is retried after the others.
 */
async function createViews(
  connection: DuckDBConnection,
  views: { file: string; sql: string }[],
): Promise<void> {
  let pending = views;
  while (pending.length > 0) {
    const failed: typeof pending = [];
    let lastError: unknown;
    for (const view of pending) {
      try {
        await connection.run(view.sql);
      } catch (error) {
        failed.push(view);
        lastError = error;
      }
    }
    if (failed.length === pending.length) {
      throw new Error(
        `Cannot create read-model views ${failed.map((v) => v.file).join(', ')}: ${String(lastError)}`,
      );
    }
    pending = failed;
  }
}

/** A file or folder's contents, or undefined when it does not exist (a part without views). */
async function ifExists<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function seedCurrencies(connection: DuckDBConnection): Promise<void> {
  const appender = await connection.createAppender('currencies');
  await connection.run('DELETE FROM currencies');
  for (const [code, scale] of allCurrencyScales()) {
    appender.appendVarchar(code);
    appender.appendInteger(scale);
    appender.endRow();
  }
  appender.closeSync();
}
