import type pg from 'pg';
import { PUBLICATION } from './slot.ts';

/** A shard's publication cannot be made as asked: one line saying why. */
export class ShardPublicationError extends Error {}

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Creates publication `name` for a shard of read-model nodes: every table of the read
 * model's publication, each filtered to the rows of `workspaceIds` (`workspaces` by its id,
 * every other table by its workspace_id). A node whose PUBLICATION names it loads those rows
 * only and streams their changes only (docs/scale-out.md, "Sharding"). Row filters need
 * PostgreSQL 15+. Returns the tables published.
 */
export async function createShardPublication(
  pool: pg.Pool,
  name: string,
  workspaceIds: readonly string[],
): Promise<string[]> {
  if (!NAME.test(name) || name === PUBLICATION)
    throw new ShardPublicationError(
      `A shard's publication is named by 1-63 lower-case letters, digits or _, starting with a letter, and not ${PUBLICATION}: ${name}`,
    );
  const ids = workspaceIds.map((id) => id.toLowerCase());
  const bad = ids.find((id) => !UUID.test(id));
  if (bad !== undefined || ids.length === 0)
    throw new ShardPublicationError(
      bad === undefined ? 'Name at least one workspace' : `Not a workspace id: ${bad}`,
    );
  const version = await pool.query<{ v: string }>(
    "SELECT current_setting('server_version_num') AS v",
  );
  if (Number(version.rows[0]!.v) < 150_000)
    throw new ShardPublicationError('Row-filtered publications need PostgreSQL 15 or later');
  const { rows } = await pool.query<{ tablename: string; keyed: boolean }>(
    `SELECT p.tablename, EXISTS (
         SELECT 1 FROM information_schema.columns c
         WHERE c.table_schema = 'public' AND c.table_name = p.tablename AND c.column_name = 'workspace_id'
       ) AS keyed
     FROM pg_publication_tables p WHERE p.pubname = $1 AND p.schemaname = 'public'
     ORDER BY p.tablename`,
    [PUBLICATION],
  );
  const unkeyed = rows.find((r) => !r.keyed && r.tablename !== 'workspaces');
  if (unkeyed)
    throw new ShardPublicationError(`Table ${unkeyed.tablename} has no workspace_id to filter by`);
  const list = ids.map((id) => `'${id}'::uuid`).join(', ');
  const tables = rows.map(
    (r) =>
      `${r.tablename} WHERE (${r.tablename === 'workspaces' ? 'id' : 'workspace_id'} IN (${list}))`,
  );
  const exists = await pool.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [name]);
  if (exists.rowCount)
    throw new ShardPublicationError(
      `Publication ${name} exists: a shard's rows are fixed when its nodes load them, so make a new one`,
    );
  await pool.query(`CREATE PUBLICATION ${name} FOR TABLE ${tables.join(', ')}`);
  return rows.map((r) => r.tablename);
}
