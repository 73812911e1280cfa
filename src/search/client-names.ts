import type { DuckDBConnection } from '@duckdb/node-api';

/** The tables with a client name kept on their rows, by search entity. */
const CLIENT_NAME_TABLES = [
  { entity: 'project', table: 'projects' },
  { entity: 'invoice', table: 'invoices' },
] as const;
type ClientNameTable = (typeof CLIENT_NAME_TABLES)[number]['table'];

/**
 * Columns of copied tables that the read model derives itself (sql/duckdb/tables.sql): never
 * read from PostgreSQL, never in a change file, set here after their rows are written.
 */
export const DERIVED_COLUMNS: ReadonlyMap<string, readonly string[]> = new Map(
  CLIENT_NAME_TABLES.map(({ table }) => [table, ['client_name_lower']]),
);

/**
 * The tables whose client names a batch that changed `changed` may have changed: a client's
 * name is on its projects and invoices, and a project or invoice may have been added or given
 * another client. Members, users and invoice lines change none.
 */
export function clientNameTablesChangedBy(changed: Iterable<string>): Set<ClientNameTable> {
  const names = new Set(changed);
  return new Set(
    CLIENT_NAME_TABLES.filter(({ table }) => names.has('clients') || names.has(table)).map(
      ({ table }) => table,
    ),
  );
}

/**
 * Sets `client_name_lower` of every project and invoice, or only of those in search_touched
 * and in `tables`, to its client's name lowercased (NULL without a client), inside the
 * caller's open transaction. search_touched already lists what a sync batch changes here: a
 * changed project or invoice (its client may be another), and the projects and invoices of a
 * changed client (src/search/search-index.ts). Only rows whose value differs are written.
 *
 * The clientName filter reads this column instead of joining the workspace's clients: on 100k
 * clients and 20k projects the filtered page took 5 ms instead of 10.5, and on 200k invoices
 * 15 ms instead of 35 (docs/lists.md).
 */
export async function refreshClientNames(
  duck: DuckDBConnection,
  touchedOnly: boolean,
  tables: ReadonlySet<ClientNameTable> = new Set(CLIENT_NAME_TABLES.map((t) => t.table)),
): Promise<void> {
  for (const { entity, table } of CLIENT_NAME_TABLES) {
    if (!tables.has(table)) continue;
    const touched = touchedOnly
      ? `SEMI JOIN search_touched t ON t.entity = CAST('${entity}' AS search_entity) AND t.record_id = r.id`
      : '';
    await duck.run(
      `UPDATE ${table} SET client_name_lower = n.name
       FROM (
         SELECT r.id, lower(c.name) AS name
         FROM ${table} r ${touched} LEFT JOIN clients c ON c.id = r.client_id
       ) n
       WHERE ${table}.id = n.id AND ${table}.client_name_lower IS DISTINCT FROM n.name`,
    );
  }
}
