import { describe, expect, it } from 'vitest';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { ids, TOKENS } from '../support/small-snapshot.ts';
import {
  type Body,
  FREE_TOKEN,
  NOWHERE,
  OTHER_OWNER,
  more,
  useTimeEntryHarness,
  other,
} from '../support/time-entry-harness.ts';

// PATCH /time-entries/{id}: ids, errors and the order of checks
// (docs/contract.md, "Order of checks"), and what the read model shows after it.
describe('PATCH /time-entries/{id}', () => {
  const t = useTimeEntryHarness();
  const { patch, storeRow, newEntry, refusedWithoutWriting } = t;

  describe('ids, errors and order of checks', () => {
    it('answers an entry of another workspace exactly as one that does not exist', async () => {
      const foreign = await patch(other.entry, { note: 'x' }, TOKENS.owner);
      const missing = await patch(NOWHERE, { note: 'x' }, TOKENS.owner);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('not_found');
      const { requestId: _a, ...foreignError } = foreign.body.error as Body;
      const { requestId: _b, ...missingError } = missing.body.error as Body;
      expect(foreignError).toEqual(missingError);
      // And the other workspace's Owner cannot reach this workspace's entries either.
      expect((await patch(ids.entry2, { note: 'x' }, OTHER_OWNER)).status).toBe(404);
      expect((await storeRow(other.entry))?.note).toBeNull();
    });

    it('answers ids of another workspace in the body exactly as ids that do not exist', async () => {
      const id = await newEntry(ids.member);
      for (const [field, foreignId] of [
        ['projectId', other.project],
        ['taskId', other.task],
        ['userId', other.user],
      ] as const) {
        const foreign = await patch(id, { [field]: foreignId }, TOKENS.owner);
        const missing = await patch(id, { [field]: NOWHERE }, TOKENS.owner);
        expect(foreign.status, field).toBe(422);
        expect(foreign.body.error.fields).toEqual({ [field]: 'does not exist' });
        expect(foreign.body.error.fields).toEqual(missing.body.error.fields);
      }
    });

    it('answers 404 for an unknown, malformed or deleted entry id', async () => {
      for (const id of [NOWHERE, 'nope', more.deleted]) {
        const res = await patch(id, { note: 'x' }, TOKENS.owner);
        expect(res.status, id).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
      expect((await storeRow(more.deleted))?.note).toBeNull();
    });

    it('checks in the order 401, 402, 403, 404, 422', async () => {
      const bad = { duration: 'soon' };
      const noToken = await t.h.app.inject({
        method: 'PATCH',
        url: `/api/v1/time-entries/${ids.entry2}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(bad),
      });
      expect(noToken.statusCode).toBe(401);
      expect((await patch(NOWHERE, bad, FREE_TOKEN)).status).toBe(402);
      expect((await patch(NOWHERE, bad, TOKENS.admin)).status).toBe(403);
      expect((await patch(NOWHERE, bad, TOKENS.member)).status).toBe(404);
      expect((await patch(NOWHERE, '[1]', TOKENS.member)).status).toBe(404);
      const managers = await newEntry(ids.manager);
      expect((await patch(managers, bad, TOKENS.member)).status).toBe(403);
      const mine = await patch(ids.entry2, bad, TOKENS.member);
      expect(mine.status).toBe(422);
      expect(mine.body.error.fields).toEqual({ duration: expect.any(String) as string });
    });

    it('answers 400 for malformed JSON and 422 for a body that is not an object', async () => {
      const id = await newEntry();
      await refusedWithoutWriting(id, [
        ['{"note": ', 400, 'malformed_json'],
        ['[1]', 422, 'validation_failed', ['body']],
        ['"note"', 422, 'validation_failed', ['body']],
      ]);
    });

    it('ignores unknown fields, stores an empty note as null, and answers the whole record', async () => {
      const id = await newEntry();
      const res = await patch(id, {
        note: '   ',
        billable: false,
        isRunning: true,
        invoiceId: ids.invoice,
        colour: 'red',
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        id,
        orgId: ids.workspace,
        userId: ids.member,
        projectId: ids.project,
        taskId: null,
        invoiceId: null,
        durationSeconds: 3600,
        billable: false,
        isRunning: false,
        note: null,
        entryDate: '2026-10-05',
        startedAt: null,
        stoppedAt: null,
        createdAt: expect.any(String) as string,
        updatedAt: expect.any(String) as string,
        deletedAt: null,
      });
      const empty = await patch(id, {});
      expect(empty.status).toBe(200);
      expect(empty.body.data.updatedAt > res.body.data.updatedAt).toBe(true);
      await refusedWithoutWriting(id, [
        [{ billable: 'no' }, 422, 'validation_failed', ['billable']],
        [{ entryDate: '2026-02-30' }, 422, 'validation_failed', ['entryDate']],
        [{ note: 7 }, 422, 'validation_failed', ['note']],
      ]);
    });
  });

  describe('read model', () => {
    it('shows the write once the read model passes the PATCH’s data position: the read model equals PostgreSQL', async () => {
      const id = await newEntry(ids.member, { task_id: ids.task });
      const res = await patch(
        id,
        {
          projectId: more.granted,
          taskId: more.grantedTask,
          startTime: '2026-10-07T13:00:00Z',
          endTime: '2026-10-07T14:45:30Z',
          entryDate: '2026-10-07',
          note: 'Read your writes',
        },
        TOKENS.owner,
      );
      expect(res.status).toBe(200);
      // No t.h.sync(): the write's own position is what a read of its token waits for.
      await t.h.passed(res);
      const duck = await t.h.readModel.connect();
      try {
        const reader = await duck.runAndReadAll(
          `SELECT CAST(project_id AS VARCHAR) AS project_id, CAST(task_id AS VARCHAR) AS task_id,
             CAST(entry_date AS VARCHAR) AS entry_date, duration_seconds, note,
             started_at, stopped_at, updated_at
           FROM time_entries WHERE id = CAST($id AS UUID)`,
          { id },
        );
        const [row] = reader.getRowObjectsJS();
        expect(row).toMatchObject({
          project_id: more.granted,
          task_id: more.grantedTask,
          entry_date: '2026-10-07',
          duration_seconds: 6330,
          note: 'Read your writes',
        });
        const { store, readModel } = await snapshotBoth(t.h.pool, duck);
        expect(readModel.time_entries).toEqual(store.time_entries);
      } finally {
        duck.closeSync();
      }
    });
  });
});
