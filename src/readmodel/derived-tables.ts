import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * What a part of the read model brings to it (a report, the search, the export journal): its
 * SQL, kept in the part's own folder, and any set-up it needs when the read model opens. The
 * composition root hands the read model the list (src/cli/derived-tables.ts).
 */
export interface ReadModelPart {
  /**
   * The folder of the part's SQL: `tables.sql`, its tables (created and versioned with the
   * copied ones: a change to any part's tables makes the read model anew), and `views/`, one
   * view or macro per file, named after it.
   */
  readonly sqlDir?: string;
  /**
   * SQL the part makes in code from a declaration of its own (profitability's metrics): tables
   * created after its `tables.sql`, views made beside those of its `views/` (`file` names each,
   * as a file there would be named). Versioned as the files are.
   */
  readonly generatedSql?: {
    readonly tables?: string;
    readonly views?: readonly { readonly file: string; readonly sql: string }[];
  };
  /**
   * Prepares the part each time the read model opens, after every part's tables and the
   * shared macros, before the views (the search loads its folding and macros, and rebuilds its
   * index when they changed).
   */
  install?(duck: DuckDBConnection): Promise<void>;
}

/**
 * A part of the read model derived from the copied tables (the search index, a report's
 * summary tables, the export journal). The sync keeps every registered part in step with the
 * rows it writes, in the same DuckDB transaction, without knowing any of them by name: the
 * composition root hands it the list (src/cli/derived-tables.ts), and the sync calls the parts
 * in that order, so a part may read the tables of the parts before it.
 */
export interface DerivedTables extends ReadModelPart {
  /** The part's name, as a flush's profile lists its cost (ChangeBatch.lastFlush). */
  readonly name: string;
  /** Read-model tables the part owns: never copied from PostgreSQL, never in a change file. */
  readonly tables: readonly string[];
  /**
   * By table the part writes (each of its tables, and each copied table it fills derived
   * columns of): the copied tables whose changes it follows for it. Such a table changes only
   * in a batch that changes one of these (or a load), so what reads it is as current as they
   * are (src/readmodel/answer-cache.ts).
   */
  readonly sources: Readonly<Record<string, readonly string[]>>;
  /**
   * Columns of copied tables that the part fills itself, by table: never read from PostgreSQL,
   * never in a change file.
   */
  readonly derivedColumns?: ReadonlyMap<string, readonly string[]>;
  /**
   * Whether a first load builds the part in a transaction of its own, committed before the
   * other parts are built. DuckDB frees a temporary table dropped inside a transaction only at
   * its commit: the search index holds the distinct texts of every record while it builds
   * (about 360 MB at 10M entries), and with them kept to the end of the load, the commit of
   * the summaries ran out of the read model's memory. Every part is built from the committed
   * copy, and the sync position is written with the last (docs/sync.md).
   */
  readonly rebuildAlone?: boolean;
  /**
   * Builds the part from scratch from the copied tables, inside the caller's open transaction:
   * after a first load, and after a truncate.
   */
  rebuild(duck: DuckDBConnection): Promise<void>;
  /** The part's share of one sync flush (ChangeBatch.flush); a new one per flush. */
  batch(): DerivedBatch;
}

/**
 * What a part does in one flush, inside its transaction. For each table's change file (its
 * rows readable as text in the temporary table `source`, columns `_seq`, `_op` and the copied
 * columns; `ids`, the ids its lines name when the table is keyed by `id` alone and they are few,
 * else undefined): `beforeApply` while the read model still holds the old rows, `afterApply`
 * once the new ones are written; then `finish` once every table of the flush is applied (the
 * change files are kept until every part has finished).
 */
export interface DerivedBatch {
  beforeApply(
    duck: DuckDBConnection,
    table: string,
    source: string,
    ids?: ReadonlySet<string>,
  ): Promise<void>;
  afterApply?(
    duck: DuckDBConnection,
    table: string,
    source: string,
    ids?: ReadonlySet<string>,
  ): Promise<void>;
  finish(duck: DuckDBConnection): Promise<void>;
}
