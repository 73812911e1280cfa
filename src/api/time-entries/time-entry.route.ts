import type { FastifyInstance } from 'fastify';
import { requireAccess } from '../access.ts';
import type { RouteContext } from '../route-context.ts';
import { recordId, runWrite } from '../write.ts';
import { timeEntryRowToRecord } from './time-entry.record.ts';
import { applyTimeEntryUpdate } from './time-entry.update.ts';

/** /time-entries: any role for its own entries; Owner/Admin for a teammate's (api-v1). */
export function registerTimeEntryRoutes(app: FastifyInstance, context: RouteContext): void {
  app.patch<{ Params: { id: string } }>('/time-entries/:id', async (request) => {
    const caller = request.caller;
    requireAccess(caller, { scope: 'write' });
    const id = recordId(request.params.id);
    const row = await runWrite(context, (trx) =>
      applyTimeEntryUpdate(trx, caller, id, request.body),
    );
    return { data: timeEntryRowToRecord(row) };
  });
}
