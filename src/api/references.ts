import type { Transaction } from 'kysely';
import { validationFailed } from './errors.ts';
import type { Database } from '../store/schema.ts';

/**
 * A live project of the workspace, or 422 naming `field`: an id of another workspace reads
 * exactly as one that does not exist.
 */
export async function requireProject(
  trx: Transaction<Database>,
  workspaceId: string,
  projectId: string,
  field = 'projectId',
): Promise<{ id: string; client_id: string | null }> {
  const project = await trx
    .selectFrom('projects')
    .select(['id', 'client_id'])
    .where('id', '=', projectId)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!project) throw validationFailed({ [field]: 'does not exist' });
  return project;
}

/** Whether `userId` was granted the project (Members see and work on those only). */
export async function isProjectMember(
  trx: Transaction<Database>,
  projectId: string,
  userId: string,
): Promise<boolean> {
  const row = await trx
    .selectFrom('project_members')
    .select('user_id')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Every id is a current member of the workspace, or 422 naming `field`. */
export async function requireMembers(
  trx: Transaction<Database>,
  workspaceId: string,
  userIds: readonly string[],
  field: string,
): Promise<void> {
  if (userIds.length === 0) return;
  const found = await trx
    .selectFrom('members')
    .select('user_id')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', 'in', [...userIds])
    .where('deleted_at', 'is', null)
    .execute();
  if (found.length !== new Set(userIds).size)
    throw validationFailed({ [field]: 'names someone who is not a member of this workspace' });
}
