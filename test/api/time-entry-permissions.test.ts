import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ids, TOKENS } from '../support/small-snapshot.ts';
import {
  ADMIN_WRITE,
  NOWHERE,
  more,
  useTimeEntryHarness,
  other,
} from '../support/time-entry-harness.ts';

// PATCH /time-entries/{id}: who may edit an entry, its project and task, and locked entries
// (docs/contract.md, "Time entries").
describe('PATCH /time-entries/{id}', () => {
  const t = useTimeEntryHarness();
  const { patch, storeRow, newEntry, refusedWithoutWriting } = t;

  describe('who may edit', () => {
    it('lets every role with the write scope edit its own entries', async () => {
      for (const [userId, token] of [
        [ids.owner, TOKENS.owner],
        [ids.admin, ADMIN_WRITE],
        [ids.manager, TOKENS.manager],
        [ids.member, TOKENS.member],
      ] as const) {
        const id = await newEntry(userId);
        const res = await patch(id, { note: `mine, ${userId}`, duration: '15m' }, token);
        expect(res.status, userId).toBe(200);
        expect(res.body.data).toMatchObject({ userId, durationSeconds: 900 });
      }
    });

    it('needs the write scope: a read-only token gets 403 even on its own entry', async () => {
      const id = await newEntry(ids.admin);
      await refusedWithoutWriting(id, [[{ note: 'x' }, 403, 'forbidden_scope']], TOKENS.admin);
    });

    it("lets only Owner and Admin edit a teammate's entry", async () => {
      const managers = await newEntry(ids.manager);
      await refusedWithoutWriting(managers, [[{ note: 'x' }, 403, 'forbidden_scope']]);
      const members = await newEntry(ids.member);
      await refusedWithoutWriting(
        members,
        [[{ note: 'x' }, 403, 'forbidden_scope']],
        TOKENS.manager,
      );
      for (const token of [TOKENS.owner, ADMIN_WRITE]) {
        const res = await patch(members, { note: `by ${token.slice(8, 20)}` }, token);
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ userId: ids.member });
      }
    });

    it('moves an entry to another member with userId, for Owner and Admin only', async () => {
      const id = await newEntry(ids.member);
      const moved = await patch(id, { userId: ids.manager }, TOKENS.owner);
      expect(moved.status).toBe(200);
      expect(moved.body.data.userId).toBe(ids.manager);
      expect((await storeRow(id))?.user_id).toBe(ids.manager);
      const back = await patch(id, { userId: ids.member.toUpperCase() }, ADMIN_WRITE);
      expect(back.status).toBe(200);
      expect(back.body.data.userId).toBe(ids.member);
      // A Manager or Member may not send userId at all, not even their own or a bad one.
      const managers = await newEntry(ids.manager);
      await refusedWithoutWriting(
        managers,
        [
          [{ userId: ids.manager }, 403, 'forbidden_scope'],
          [{ userId: ids.member }, 403, 'forbidden_scope'],
        ],
        TOKENS.manager,
      );
      await refusedWithoutWriting(id, [
        [{ userId: ids.member }, 403, 'forbidden_scope'],
        [{ userId: 'nope', duration: 'bad' }, 403, 'forbidden_scope'],
      ]);
    });

    it('refuses a userId that is not an active member of this workspace', async () => {
      const id = await newEntry(ids.member);
      await refusedWithoutWriting(
        id,
        [
          [{ userId: more.outsider }, 422, 'validation_failed', ['userId']],
          [{ userId: more.former }, 422, 'validation_failed', ['userId']],
          [{ userId: NOWHERE }, 422, 'validation_failed', ['userId']],
          [{ userId: other.user }, 422, 'validation_failed', ['userId']],
          [{ userId: 'nope' }, 422, 'validation_failed', ['userId']],
          [{ userId: null }, 422, 'validation_failed', ['userId']],
        ],
        TOKENS.owner,
      );
      const missing = await patch(id, { userId: NOWHERE }, TOKENS.owner);
      expect(missing.body.error.fields).toEqual({ userId: 'does not exist' });
      const former = await patch(id, { userId: more.former }, TOKENS.owner);
      expect(former.body.error.fields).toEqual({ userId: 'is not a member of this workspace' });
    });

    it('keeps a Member to the projects they were granted', async () => {
      const id = await newEntry(ids.member);
      await refusedWithoutWriting(id, [[{ projectId: more.ungranted }, 403, 'forbidden_scope']]);
      const res = await patch(id, { projectId: more.granted });
      expect(res.status).toBe(200);
      expect(res.body.data.projectId).toBe(more.granted);
      // Managers and up are not limited to granted projects.
      const managers = await newEntry(ids.manager);
      const moved = await patch(managers, { projectId: more.ungranted }, TOKENS.manager);
      expect(moved.status).toBe(200);
      expect(moved.body.data.projectId).toBe(more.ungranted);
    });
  });

  describe('project and task', () => {
    it("checks the task against the entry's project, the new one when it moves", async () => {
      const id = await newEntry(ids.member, { task_id: ids.task });
      await refusedWithoutWriting(id, [
        [{ taskId: more.grantedTask }, 422, 'validation_failed', ['taskId']],
        [{ projectId: more.granted }, 422, 'validation_failed', ['taskId']],
        [{ projectId: more.granted, taskId: ids.task }, 422, 'validation_failed', ['taskId']],
        [{ taskId: NOWHERE }, 422, 'validation_failed', ['taskId']],
        [{ projectId: NOWHERE }, 422, 'validation_failed', ['projectId']],
        [{ projectId: 'nope' }, 422, 'validation_failed', ['projectId']],
        [{ projectId: null }, 422, 'validation_failed', ['projectId']],
      ]);
      const wrong = await patch(id, { taskId: more.grantedTask });
      expect(wrong.body.error.fields).toEqual({ taskId: 'belongs to another project' });

      const moved = await patch(id, { projectId: more.granted, taskId: more.grantedTask });
      expect(moved.status).toBe(200);
      expect(moved.body.data).toMatchObject({
        projectId: more.granted,
        taskId: more.grantedTask,
      });
      const cleared = await patch(id, { projectId: ids.project, taskId: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.data).toMatchObject({ projectId: ids.project, taskId: null });
    });
  });

  describe('locked entries', () => {
    it('locks the duration, date, project and user of an entry on a SENT invoice and an APPROVED bill', async () => {
      // entry1 is on INV-0001 (SENT) and on B-0001 (APPROVED).
      await refusedWithoutWriting(
        ids.entry1,
        [
          [{ durationSeconds: 3600 }, 409, 'entry_locked', ['durationSeconds']],
          [{ duration: '2h' }, 409, 'entry_locked', ['duration']],
          [
            { startTime: '2026-10-01T09:00:00Z', endTime: '2026-10-01T10:30:00Z' },
            409,
            'entry_locked',
            ['startTime', 'endTime'],
          ],
          [{ entryDate: '2026-10-02' }, 409, 'entry_locked', ['entryDate']],
          [{ projectId: more.granted, taskId: null }, 409, 'entry_locked', ['projectId']],
          [{ userId: ids.manager }, 409, 'entry_locked', ['userId']],
          [{ note: 'ok', entryDate: '2026-10-02' }, 409, 'entry_locked', ['entryDate']],
        ],
        TOKENS.owner,
      );
    });

    it('still changes the note and billable flag of a locked entry, and takes unchanged values', async () => {
      const res = await patch(ids.entry1, {
        note: 'Wireframes, reviewed',
        billable: false,
        durationSeconds: 5400,
        duration: '1.5h',
        entryDate: '2026-10-01',
        projectId: ids.project,
        taskId: ids.task,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        note: 'Wireframes, reviewed',
        billable: false,
        durationSeconds: 5400,
        invoiceId: ids.invoice,
      });
      const owner = await patch(ids.entry1, { userId: ids.member, billable: true }, TOKENS.owner);
      expect(owner.status).toBe(200);
    });

    it('locks for an APPROVED bill alone and for a PAID invoice, by line or by invoiceId alone', async () => {
      for (const id of [more.onApprovedBill, more.onPaidInvoice]) {
        await refusedWithoutWriting(id, [
          [{ durationSeconds: 60 }, 409, 'entry_locked', ['durationSeconds']],
        ]);
      }
      for (const invoiceId of [more.paidInvoice, ids.invoice]) {
        const byInvoiceId = await newEntry(ids.member);
        await t.h.pool.query('UPDATE time_entries SET invoice_id = $1 WHERE id = $2', [
          invoiceId,
          byInvoiceId,
        ]);
        await refusedWithoutWriting(byInvoiceId, [
          [{ entryDate: '2026-10-09' }, 409, 'entry_locked', ['entryDate']],
        ]);
      }
    });

    it('does not lock for a DRAFT invoice, a VOID bill or a deleted SENT invoice', async () => {
      const deletedInvoice = randomUUID();
      const onDeletedInvoice = await newEntry(ids.member);
      await t.h.pool.query(
        `INSERT INTO invoices (id, workspace_id, client_id, number, status, payment_status,
           currency, subtotal, total, deleted_at)
         VALUES ($1, $2, $3, 'INV-0009', 'SENT', 'unpaid', 'USD', 0, 0, now())`,
        [deletedInvoice, ids.workspace, ids.client],
      );
      await t.h.pool.query('UPDATE time_entries SET invoice_id = $1 WHERE id = $2', [
        deletedInvoice,
        onDeletedInvoice,
      ]);
      for (const id of [more.onDraftInvoice, more.onVoidBill, onDeletedInvoice]) {
        const res = await patch(id, { duration: '2h', entryDate: '2026-10-06' });
        expect(res.status, id).toBe(200);
        expect(res.body.data).toMatchObject({ durationSeconds: 7200, entryDate: '2026-10-06' });
      }
    });
  });
});
