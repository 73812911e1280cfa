import type { Transaction } from 'kysely';
import { hasRoleAtLeast, type Caller } from '../caller.ts';
import { entryLocked, forbiddenScope, notFound, validationFailed } from '../errors.ts';
import type { TimeEntryRow } from '../../store/record-tables.ts';
import type { Database } from '../../store/schema.ts';
import { lockedRecord } from '../locked-row.ts';
import { isProjectMember, requireProject } from '../references.ts';
import { bodyNames, parseTimeEntryInput, type TimeEntryInput } from './time-entry.input.ts';
import {
  findTaskProjectId,
  findUserStanding,
  isTimeEntryLocked,
  updateTimeEntry,
  type TimeEntryChanges,
} from './time-entry.repository.ts';

// An id of another workspace is looked up within the caller's workspace only, so it gets this
// same answer as an id that exists nowhere.
const DOES_NOT_EXIST = 'does not exist';
const LOCKED = 'cannot change: the entry is on a sent or paid invoice or an approved team bill';

/**
 * PATCH /time-entries/{id} inside its transaction (docs/contract.md, "Duration rules" and
 * "Time entries"). Checks run in the order of docs/contract.md, "Order of checks"
 * (docs/decisions.md "Time-entry updates"): the entry (404), whose entry it is and who may send
 * `userId` (403), the body (422), the records it names (422, and 403 for a Member's project), then
 * the invoice and bill lock (409). Any error throws, so the transaction writes nothing.
 */
export async function applyTimeEntryUpdate(
  trx: Transaction<Database>,
  caller: Caller,
  id: string,
  body: unknown,
): Promise<TimeEntryRow> {
  const entry = await lockedRecord(trx, 'time_entries', caller.workspaceId, id);
  if (!entry) throw notFound();
  // Any role edits its own entries; Owner/Admin also a teammate's, and only they send userId.
  const actsForTeammates = hasRoleAtLeast(caller, 'ADMIN');
  if (entry.user_id !== caller.userId && !actsForTeammates) throw forbiddenScope();
  if (bodyNames(body, 'userId') && !actsForTeammates) throw forbiddenScope();

  const input = parseTimeEntryInput(body);
  const changes = await resolveChanges(trx, caller, entry, input);
  const locked = lockedFieldsChanged(entry, changes, input);
  if (Object.keys(locked).length > 0 && (await isTimeEntryLocked(trx, caller.workspaceId, entry)))
    throw entryLocked(locked);
  return updateTimeEntry(trx, caller.workspaceId, entry.id, changes);
}

/** The columns the input sets, once every record it names is checked. */
async function resolveChanges(
  trx: Transaction<Database>,
  caller: Caller,
  entry: TimeEntryRow,
  input: TimeEntryInput,
): Promise<TimeEntryChanges> {
  const workspaceId = caller.workspaceId;
  const problems: Record<string, string> = {};
  const changes: TimeEntryChanges = {};

  const projectId = input.projectId ?? entry.project_id;
  if (projectId !== entry.project_id) {
    await requireProject(trx, workspaceId, projectId);
    // The Member limit: time goes only to projects the Member was granted.
    if (caller.role === 'MEMBER' && !(await isProjectMember(trx, projectId, caller.userId)))
      throw forbiddenScope();
    changes.project_id = projectId;
  }

  if (input.userId !== undefined && input.userId !== entry.user_id) {
    const standing = await findUserStanding(trx, workspaceId, input.userId);
    if (standing === undefined) problems.userId = DOES_NOT_EXIST;
    else if (standing === 'former') problems.userId = 'is not a member of this workspace';
    changes.user_id = input.userId;
  }

  // The task must be on the entry's project, the new one when it moves. A move without a
  // taskId keeps the task only if it is on the new project: the caller chooses, never the server.
  const taskId = input.taskId === undefined ? entry.task_id : input.taskId;
  if (taskId !== null && (taskId !== entry.task_id || projectId !== entry.project_id)) {
    const taskProjectId = await findTaskProjectId(trx, workspaceId, taskId);
    if (input.taskId === undefined) {
      if (taskProjectId !== projectId)
        problems.taskId =
          "the entry's task is not on the new project: send a taskId of it, or null";
    } else if (taskProjectId === undefined) problems.taskId = DOES_NOT_EXIST;
    else if (taskProjectId !== projectId) problems.taskId = 'belongs to another project';
  }
  if (input.taskId !== undefined) changes.task_id = input.taskId;

  const length = input.length;
  if (length && entry.is_running) {
    for (const field of length.sent) problems[field] = 'cannot be set while the entry is running';
  } else if (length?.span) {
    changes.duration_seconds = length.seconds;
    changes.started_at = length.span.startedAt;
    changes.stopped_at = length.span.stoppedAt;
  } else if (length && length.seconds !== entry.duration_seconds) {
    changes.duration_seconds = length.seconds;
    // A new length keeps the start, so the entry's times never contradict its duration.
    if (entry.started_at !== null)
      changes.stopped_at = new Date(entry.started_at.getTime() + length.seconds * 1000);
  }

  if (input.entryDate !== undefined) changes.entry_date = input.entryDate;
  if (input.note !== undefined) changes.note = input.note;
  if (input.billable !== undefined) changes.billable = input.billable;

  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return changes;
}

/**
 * The request fields that would change what a billed or paid-out entry keeps
 * (docs/contract.md, "Time entries"): its duration (and times), date, project and user. Sending a
 * value it already has changes nothing, so it is not refused.
 */
function lockedFieldsChanged(
  entry: TimeEntryRow,
  changes: TimeEntryChanges,
  input: TimeEntryInput,
): Record<string, string> {
  const fields: Record<string, string> = {};
  const lengthChanged =
    (changes.duration_seconds !== undefined &&
      changes.duration_seconds !== entry.duration_seconds) ||
    movedInstant(changes.started_at, entry.started_at) ||
    movedInstant(changes.stopped_at, entry.stopped_at);
  if (lengthChanged) for (const field of input.length?.sent ?? []) fields[field] = LOCKED;
  if (changes.entry_date !== undefined && changes.entry_date !== entry.entry_date)
    fields.entryDate = LOCKED;
  if (changes.project_id !== undefined && changes.project_id !== entry.project_id)
    fields.projectId = LOCKED;
  if (changes.user_id !== undefined && changes.user_id !== entry.user_id) fields.userId = LOCKED;
  return fields;
}

function movedInstant(next: Date | undefined, current: Date | null): boolean {
  return next !== undefined && next.getTime() !== current?.getTime();
}
