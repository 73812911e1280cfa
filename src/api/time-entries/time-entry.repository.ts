import type { Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { TimeEntryRow } from '../../store/record-tables.ts';

// The SQL of PATCH /time-entries/{id}. Every lookup is bounded by the workspace, so an id of
// another workspace is found exactly as often as one that does not exist: never.

/**
 * Whether the entry is billed or paid out (docs/contract.md, "Time entries": `entry_locked`): on a
 * SENT or PAID invoice, by a line or by its own `invoice_id`, or on a line of an APPROVED team
 * bill. A deleted invoice or bill no longer holds it.
 */
export async function isTimeEntryLocked(
  trx: Transaction<Database>,
  workspaceId: string,
  entry: Pick<TimeEntryRow, 'id' | 'invoice_id'>,
): Promise<boolean> {
  const { locked } = await trx
    .selectNoFrom((eb) =>
      eb
        .or([
          eb.exists(
            eb
              .selectFrom('invoices as i')
              .select('i.id')
              .where('i.workspace_id', '=', workspaceId)
              .where('i.status', 'in', ['SENT', 'PAID'])
              .where('i.deleted_at', 'is', null)
              .where((w) =>
                w.or([
                  ...(entry.invoice_id === null ? [] : [w('i.id', '=', entry.invoice_id)]),
                  w.exists(
                    w
                      .selectFrom('invoice_lines as l')
                      .select('l.id')
                      .whereRef('l.invoice_id', '=', 'i.id')
                      .where('l.workspace_id', '=', workspaceId)
                      .where('l.time_entry_id', '=', entry.id),
                  ),
                ]),
              ),
          ),
          eb.exists(
            eb
              .selectFrom('team_bill_lines as l')
              .innerJoin('team_bills as b', 'b.id', 'l.bill_id')
              .select('l.id')
              .where('l.workspace_id', '=', workspaceId)
              .where('l.time_entry_id', '=', entry.id)
              .where('b.workspace_id', '=', workspaceId)
              .where('b.status', '=', 'APPROVED')
              .where('b.deleted_at', 'is', null),
          ),
        ])
        .$castTo<boolean>()
        .as('locked'),
    )
    .executeTakeFirstOrThrow();
  return locked;
}

/** The project of a live task of the workspace; undefined when there is no such task. */
export async function findTaskProjectId(
  trx: Transaction<Database>,
  workspaceId: string,
  taskId: string,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('tasks')
    .select('project_id')
    .where('id', '=', taskId)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.project_id;
}

/**
 * A user of the workspace: `member` while both the user and their membership are live,
 * `former` for a user who is no member (any more); undefined when the workspace has no such user.
 */
export async function findUserStanding(
  trx: Transaction<Database>,
  workspaceId: string,
  userId: string,
): Promise<'member' | 'former' | undefined> {
  const row = await trx
    .selectFrom('users as u')
    .leftJoin('members as m', (join) =>
      join.onRef('m.workspace_id', '=', 'u.workspace_id').onRef('m.user_id', '=', 'u.id'),
    )
    .select(['u.deleted_at as user_deleted_at', 'm.user_id', 'm.deleted_at as member_deleted_at'])
    .where('u.workspace_id', '=', workspaceId)
    .where('u.id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  const live =
    row.user_deleted_at === null && row.user_id !== null && row.member_deleted_at === null;
  return live ? 'member' : 'former';
}

/** The columns an update may set; each one absent is left as it is. */
export interface TimeEntryChanges {
  user_id?: string;
  project_id?: string;
  task_id?: string | null;
  entry_date?: string;
  duration_seconds?: number;
  started_at?: Date;
  stopped_at?: Date;
  note?: string | null;
  billable?: boolean;
}

/** Writes the changes to an entry found by `lockedRecord` (src/api/locked-row.ts), and answers the new row. */
export async function updateTimeEntry(
  trx: Transaction<Database>,
  workspaceId: string,
  id: string,
  changes: TimeEntryChanges,
): Promise<TimeEntryRow> {
  return trx
    .updateTable('time_entries')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
