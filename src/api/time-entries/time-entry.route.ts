import { UPDATE_ERRORS, type RoutePlugin } from '../route-schema.ts';
import { runWrite } from '../write.ts';
import { recordUpdateSchema } from '../write-routes.ts';
import { timeEntryUpdateInput } from './time-entry.input.ts';
import { timeEntryRecord, timeEntryRowToRecord } from './time-entry.record.ts';
import { applyTimeEntryUpdate } from './time-entry.update.ts';

/**
 * /time-entries: any role for its own entries; Owner/Admin for a teammate's
 * (docs/contract.md, "Role rules by area").
 */
export const timeEntryRoutes: RoutePlugin = async (app, { context }) => {
  app.patch(
    '/time-entries/:id',
    {
      config: { access: { scope: 'write' } },
      schema: recordUpdateSchema({
        summary:
          'Update a time entry: its length from durationSeconds, duration (1h30m, 1:30, 1.5h...) or startTime+endTime',
        description:
          'Who may call: any role for own entries; Owner and Admin for a teammate’s (userId moves it); write scope.',
        body: timeEntryUpdateInput,
        record: timeEntryRecord,
        errors: {
          ...UPDATE_ERRORS,
          409: ['entry_locked'],
          422: ['validation_failed', 'duration_conflict'],
        },
      }),
    },
    async (request) => {
      const caller = request.caller;
      return runWrite(context, request, async (trx) => ({
        data: timeEntryRowToRecord(
          await applyTimeEntryUpdate(trx, caller, request.params.id, request.body),
        ),
      }));
    },
  );
};
