import type pg from 'pg';
import { deleteWorkspace } from '../store/delete-workspace.ts';
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
  await skipForeignKeyTriggers(client);
  // Sorting for the inserts and building indexes go faster with room to work in memory.
  await client.query(`SET LOCAL work_mem = '256MB'`);
  await client.query(`SET LOCAL maintenance_work_mem = '512MB'`);
  const rows: Record<string, number> = {};
  for (const table of tables) {
    const staged = staging.rows(table);
    if (staged === 0) continue;
    const dropped = await dropIndexesForLargeLoad(client, table, staged);
    // In key order, the primary key and the (workspace_id, id) key grow at one end.
    const order = TABLES[table as TableName]?.columns.some((c) => c.column === 'id')
      ? ' ORDER BY id'
      : '';
    const result = await client.query(`INSERT INTO ${table} SELECT * FROM stage_${table}${order}`);
    rows[table] = result.rowCount ?? 0;
    phase('insert');
    for (const definition of dropped) await client.query(definition);
    phase('indexes');
  }
  return rows;
}

/**
 * Inserting millions of rows into a table's indexes in random order costs several times
 * building them afresh (docs/import.md). When a load brings more rows to a table than it
 * holds, the table's indexes that back no constraint are dropped before the insert, and
 * their definitions returned to build them again after. Constraint indexes (keys, unique)
 * stay: references depend on them, and key order makes their inserts cheap.
 */
async function dropIndexesForLargeLoad(
  client: pg.PoolClient,
  table: string,
  rows: number,
): Promise<string[]> {
  if (rows < REBUILD_INDEXES_FROM_ROWS) return [];
  const { rows: held } = await client.query<{ n: number }>(
    'SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = $1::regclass',
    [table],
  );
  if (rows <= (held[0]?.n ?? 0)) return [];
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i
     WHERE i.indrelid = $1::regclass
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [table],
  );
  for (const { name } of indexes) await client.query(`DROP INDEX ${name}`);
  return indexes.map((i) => i.definition);
}

/**
 * The staged rows were checked against every foreign key of the schema (import-checks.ts:
 * each reference resolves inside the snapshot, and every row gets the snapshot's workspace
 * id), so the per-row FK triggers would only repeat that work, and they make a bulk insert
 * several times slower. Turning them off needs superuser (the embedded store is); elsewhere
 * the triggers stay on and only speed is lost. Unique and CHECK constraints always apply.
 */
async function skipForeignKeyTriggers(client: pg.PoolClient): Promise<void> {
  await client.query('SAVEPOINT fk_triggers');
  try {
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query('RELEASE SAVEPOINT fk_triggers');
  } catch {
    await client.query('ROLLBACK TO SAVEPOINT fk_triggers');
  }
}
