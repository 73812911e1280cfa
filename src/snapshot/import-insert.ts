import type pg from 'pg';
import { deleteWorkspace } from '../store/delete-workspace.ts';
import { skipForeignKeyTriggers } from '../store/foreign-key-triggers.ts';
import type { WorkspaceRecord } from './records.ts';
import type { Staging } from './staging.ts';
import { TABLES, type TableName } from './tables.ts';

/**
 * Below this many rows a table keeps its indexes during the insert: dropping one takes the
 * table's exclusive lock, which a small import should never need.
 */
const REBUILD_INDEXES_FROM_ROWS = 10_000;

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
): Promise<Record<string, number>> {
  if (exists) await deleteWorkspace(client, workspace.id);
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
 * index of the table is dropped before the insert: its keys (primary and unique
 * constraints, with the references of other tables that depend on them) and its other
 * indexes. Returned are the statements that make them again, from their own definitions,
 * in an order that works: keys, other indexes, then the references (validated against the
 * rows the referencing tables hold at that point). Undefined when the table keeps them.
 */
async function dropIndexesForLargeLoad(
  client: pg.PoolClient,
  table: string,
  rows: number,
): Promise<string[] | undefined> {
  if (rows < REBUILD_INDEXES_FROM_ROWS) return undefined;
  const { rows: held } = await client.query<{ n: number }>(
    'SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = $1::regclass',
    [table],
  );
  if (rows <= (held[0]?.n ?? 0)) return undefined;
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
