import type pg from 'pg';
import { deleteWorkspace } from '../store/delete-workspace.ts';
import { skipForeignKeyTriggers } from '../store/foreign-key-triggers.ts';
import type { WorkspaceRecord } from './records.ts';
import type { Staging, StraightPolicy } from './staging.ts';
import { TABLES, type TableName } from './tables.ts';

/**
 * Below this many rows a table keeps its indexes during the insert: dropping one takes the
 * table's exclusive lock, which a small import should never need.
 */
const REBUILD_INDEXES_FROM_ROWS = 10_000;

/**
 * The tables an import loads straight into, past their staging (docs/import.md, "Loading
 * straight into the large tables"): each table's indexes dropped, and the statements that make
 * them again; whether the replaced workspace was deleted already.
 */
export interface StraightLoads {
  /** By table: the statements that make its dropped indexes again (dropIndexes). */
  readonly rebuild: Map<string, string[]>;
  workspaceDeleted: boolean;
}

/**
 * The rows `table` holds, counted: the statistics' estimate is not transactional, and an
 * ANALYZE inside an import that was rolled back leaves its rows counted there.
 */
async function heldRows(client: pg.PoolClient, table: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

/**
 * Whether a load of `rows` into a table holding `held` rebuilds the table's indexes rather
 * than insert into them (docs/import.md, "Inserting into indexes").
 */
const rebuildsIndexes = (rows: number, held: number) =>
  rows >= REBUILD_INDEXES_FROM_ROWS && rows > held;

/**
 * Rows a table brings before it is loaded straight (docs/import.md, "Loading straight into the
 * large tables"). Straight rows save their staging, about 2.7 µs a row, but the references to
 * the table's rebuilt keys are then validated against every referencing row already loaded,
 * about 1 µs a row: at 10M entries the tasks (tens of thousands) saved 0.2 s and cost 3.9 s
 * of validating the entries and bill lines that refer to them, where the entries saved about
 * 27 s and cost 13.7 s.
 */
export const STRAIGHT_FROM_ROWS = 250_000;

/**
 * The StraightPolicy of an import (staging.ts): a table goes straight into the real table
 * once it has brought `fromRows` rows and more than the table holds (heldRows), by
 * loadStraight.
 */
export function straightPolicy(
  client: pg.PoolClient,
  workspace: WorkspaceRecord,
  exists: boolean,
  loads: StraightLoads,
  fromRows = STRAIGHT_FROM_ROWS,
): StraightPolicy {
  const held = new Map<string, number>();
  return {
    fromRows: Math.max(fromRows, REBUILD_INDEXES_FROM_ROWS),
    switchTo: async (table, rows) => {
      if (!held.has(table)) held.set(table, await heldRows(client, table));
      const holds = held.get(table)!;
      if (!rebuildsIndexes(rows, holds)) return holds;
      return (await loadStraight(client, workspace, exists, table, loads)) ? true : Infinity;
    },
  };
}

/**
 * Makes `table` take the rest of the load straight from COPY, once its staged rows show it
 * large: the replaced workspace's rows deleted (once, before the first such table), the table's
 * indexes dropped (to be built again after the checks), the rows staged so far moved in, and
 * `stage_<table>` made a view of the workspace's rows, so that the checks read them where they
 * read every table's. False, with nothing changed, where the foreign-key triggers cannot be
 * turned off (a server where the store's user is no superuser): rows of tables still in
 * staging would fail them.
 */
async function loadStraight(
  client: pg.PoolClient,
  workspace: WorkspaceRecord,
  exists: boolean,
  table: string,
  loads: StraightLoads,
): Promise<boolean> {
  if (!(await skipForeignKeyTriggers(client))) return false;
  if (exists && !loads.workspaceDeleted) {
    // With its indexes in place; it turns the triggers back on.
    await deleteWorkspace(client, workspace.id, { replacing: true });
    loads.workspaceDeleted = true;
    await skipForeignKeyTriggers(client);
  }
  loads.rebuild.set(table, await dropIndexes(client, table));
  await client.query(`INSERT INTO ${table} SELECT * FROM stage_${table}`);
  await client.query(`DROP TABLE stage_${table}`);
  // The id is a uuid the workspace's schema checked: it cannot end the quotes.
  await client.query(
    `CREATE TEMP VIEW stage_${table} AS SELECT * FROM ${table} WHERE workspace_id = '${workspace.id}'`,
  );
  return true;
}

/**
 * Writes the checked, staged snapshot into the real tables, `tables` in an order where each
 * comes after the tables it references, and returns the rows written per table. `phase` is
 * told when the time since its last call went to inserting, and when to building indexes.
 */
export async function insertStaged(
  client: pg.PoolClient,
  workspace: WorkspaceRecord,
  staging: Staging,
  exists: boolean,
  tables: readonly string[],
  phase: (name: 'insert' | 'indexes') => void,
  straight: StraightLoads,
): Promise<Record<string, number>> {
  if (exists && !straight.workspaceDeleted)
    await deleteWorkspace(client, workspace.id, { replacing: true });
  await client.query(
    `INSERT INTO workspaces (id, name, plan, base_currency, timezone, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), coalesce($7::timestamptz, $6::timestamptz, now()))`,
    [
      workspace.id,
      workspace.name,
      workspace.plan,
      workspace.baseCurrency,
      workspace.timezone,
      workspace.createdAt ?? null,
      workspace.updatedAt ?? null,
    ],
  );
  // The staged rows were checked against every reference of the schema (import-checks.ts:
  // each resolves inside the snapshot, and every row gets the snapshot's workspace id).
  await skipForeignKeyTriggers(client);
  // Sorting for the inserts and building indexes go faster with room to work in memory.
  await client.query(`SET LOCAL work_mem = '256MB'`);
  await client.query(`SET LOCAL maintenance_work_mem = '1GB'`);
  const rows: Record<string, number> = {};
  for (const table of tables) {
    const staged = staging.rows(table);
    if (staged === 0) continue;
    const loaded = straight.rebuild.get(table);
    if (loaded) {
      rows[table] = staged;
      for (const statement of loaded) await client.query(statement);
      phase('indexes');
      continue;
    }
    const rebuild = await dropIndexesForLargeLoad(client, table, staged);
    // Into standing unique indexes, rows in key order grow each index at one end; into a
    // table whose indexes are rebuilt after, order does not matter.
    const order =
      rebuild === undefined && TABLES[table as TableName]?.columns.some((c) => c.column === 'id')
        ? ' ORDER BY id'
        : '';
    const result = await client.query(`INSERT INTO ${table} SELECT * FROM stage_${table}${order}`);
    rows[table] = result.rowCount ?? 0;
    phase('insert');
    for (const statement of rebuild ?? []) await client.query(statement);
    phase('indexes');
  }
  return rows;
}

/**
 * Inserting millions of rows into a table's indexes costs several times building them
 * afresh (docs/import.md). When a load brings more rows to a table than it holds, every
 * index of the table is dropped before the insert (dropIndexes). Undefined when the table
 * keeps them.
 */
async function dropIndexesForLargeLoad(
  client: pg.PoolClient,
  table: string,
  rows: number,
): Promise<string[] | undefined> {
  if (rows < REBUILD_INDEXES_FROM_ROWS) return undefined;
  if (!rebuildsIndexes(rows, await heldRows(client, table))) return undefined;
  return dropIndexes(client, table);
}

/**
 * Drops every index of `table`: its keys (primary and unique constraints, with the references
 * of other tables that depend on them) and its other indexes. Returned are the statements that
 * make them again, from their own definitions, in an order that works: keys, other indexes,
 * then the references (validated against the rows the referencing tables hold at that point).
 */
async function dropIndexes(client: pg.PoolClient, table: string): Promise<string[]> {
  const { rows: keys } = await client.query<{ name: string; definition: string }>(
    `SELECT quote_ident(conname) AS name, pg_get_constraintdef(oid) AS definition
     FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u') ORDER BY contype, conname`,
    [table],
  );
  const { rows: references } = await client.query<{
    owner: string;
    name: string;
    definition: string;
  }>(
    `SELECT conrelid::regclass::text AS owner, quote_ident(conname) AS name,
            pg_get_constraintdef(oid) AS definition
     FROM pg_constraint WHERE confrelid = $1::regclass AND contype = 'f' ORDER BY conrelid::regclass::text, conname`,
    [table],
  );
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i
     WHERE i.indrelid = $1::regclass
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
     ORDER BY 1`,
    [table],
  );
  for (const r of references)
    await client.query(`ALTER TABLE ${r.owner} DROP CONSTRAINT ${r.name}`);
  for (const k of keys) await client.query(`ALTER TABLE ${table} DROP CONSTRAINT ${k.name}`);
  for (const i of indexes) await client.query(`DROP INDEX ${i.name}`);
  return [
    ...keys.map((k) => `ALTER TABLE ${table} ADD CONSTRAINT ${k.name} ${k.definition}`),
    ...indexes.map((i) => i.definition),
    ...references.map((r) => `ALTER TABLE ${r.owner} ADD CONSTRAINT ${r.name} ${r.definition}`),
  ];
}
