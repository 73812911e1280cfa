import type { Selectable, Transaction } from 'kysely';
import type { Database } from '../store/schema.ts';

/** The tables whose records a PATCH or DELETE changes: each has id, workspace_id and deleted_at. */
type RecordTable = 'clients' | 'tasks' | 'expenses' | 'time_entries';

/**
 * The record `id` of the workspace, locked for the write that follows (SELECT ... FOR UPDATE);
 * undefined when there is none, or it is deleted (unless `deleted` is true: archiving answers an
 * archived task as it is). Bounded by the workspace, so an id of another workspace is found as
 * often as one that does not exist: never.
 */
export async function lockedRecord<T extends RecordTable>(
  trx: Transaction<Database>,
  table: T,
  workspaceId: string,
  id: string,
  options: { deleted?: boolean } = {},
): Promise<Selectable<Database[T]> | undefined> {
  // One table stands for them all in the query's type: the columns it names are in each.
  let query = trx
    .selectFrom(table as 'clients')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId);
  if (!options.deleted) query = query.where('deleted_at', 'is', null);
  return (await query.forUpdate().executeTakeFirst()) as Selectable<Database[T]> | undefined;
}
