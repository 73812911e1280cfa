import { describe, expect, it } from 'vitest';
import { ids } from '../support/small-snapshot.ts';
import { more, useTimeEntryHarness } from '../support/time-entry-harness.ts';

// PATCH /time-entries/{id}: the duration forms and their rules
// (docs/contract.md, "Duration rules").
describe('PATCH /time-entries/{id}', () => {
  const t = useTimeEntryHarness();
  const { patch, storeRow, newEntry, refusedWithoutWriting } = t;

  describe('duration', () => {
    it('reads every duration form', async () => {
      const id = await newEntry();
      for (const [duration, seconds] of [
        ['1h30m', 5400],
        ['1h', 3600],
        ['90m', 5400],
        ['45s', 45],
        ['1h30m15s', 5415],
        ['1:30', 5400],
        ['1:30:15', 5415],
        ['1.5h', 5400],
        ['0.25h', 900],
      ] as const) {
        const res = await patch(id, { duration });
        expect(res.status, duration).toBe(200);
        expect(res.body.data.durationSeconds, duration).toBe(seconds);
        expect((await storeRow(id))?.duration_seconds).toBe(String(seconds));
      }
    });

    it('refuses any other duration text with 422 naming duration, and writes nothing', async () => {
      const id = await newEntry();
      await refusedWithoutWriting(
        id,
        [
          '1h30',
          '90',
          '1:60',
          '1.5',
          'h',
          '-1h',
          '1h 30m',
          ' 1h',
          '1H',
          '',
          '1h90m',
          '0.0001h',
          '1.5m',
        ].map((duration) => [{ duration }, 422, 'validation_failed', ['duration']]),
      );
      await refusedWithoutWriting(id, [
        ['{"duration": 5400}', 422, 'validation_failed', ['duration']],
        [{ duration: null }, 422, 'validation_failed', ['duration']],
      ]);
    });

    it('takes 1 second to 24 hours, from either field, and nothing outside', async () => {
      const id = await newEntry();
      for (const [body, seconds] of [
        [{ durationSeconds: 1 }, 1],
        [{ durationSeconds: 86_400 }, 86_400],
        [{ duration: '1s' }, 1],
        [{ duration: '24h' }, 86_400],
        [{ duration: '24:00:00' }, 86_400],
      ] as const) {
        const res = await patch(id, body);
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(res.body.data.durationSeconds).toBe(seconds);
      }
      await refusedWithoutWriting(id, [
        [{ durationSeconds: 0 }, 422, 'validation_failed', ['durationSeconds']],
        [{ durationSeconds: 86_401 }, 422, 'validation_failed', ['durationSeconds']],
        [{ durationSeconds: -60 }, 422, 'validation_failed', ['durationSeconds']],
        ['{"durationSeconds": 1.5}', 422, 'validation_failed', ['durationSeconds']],
        ['{"durationSeconds": 60.0}', 422, 'validation_failed', ['durationSeconds']],
        ['{"durationSeconds": 1e3}', 422, 'validation_failed', ['durationSeconds']],
        [{ durationSeconds: '60' }, 422, 'validation_failed', ['durationSeconds']],
        [{ durationSeconds: null }, 422, 'validation_failed', ['durationSeconds']],
        [{ duration: '0s' }, 422, 'validation_failed', ['duration']],
        [{ duration: '24h0m1s' }, 422, 'validation_failed', ['duration']],
        [{ duration: '24:00:01' }, 422, 'validation_failed', ['duration']],
        [{ duration: '25h' }, 422, 'validation_failed', ['duration']],
      ]);
    });

    it('lets durationSeconds win over duration, which must still be well-formed', async () => {
      const id = await newEntry();
      const res = await patch(id, { durationSeconds: 120, duration: '1h' });
      expect(res.status).toBe(200);
      expect(res.body.data.durationSeconds).toBe(120);
      // The duration that loses is not checked against the bounds, only its form.
      expect((await patch(id, { durationSeconds: 240, duration: '25h' })).body.data).toMatchObject({
        durationSeconds: 240,
      });
      await refusedWithoutWriting(id, [
        [{ durationSeconds: 300, duration: '1h30' }, 422, 'validation_failed', ['duration']],
      ]);
    });

    it('derives the duration from startTime and endTime and sets startedAt and stoppedAt', async () => {
      const id = await newEntry();
      const res = await patch(id, {
        startTime: '2026-10-05T09:00:00+02:00',
        endTime: '2026-10-05T08:30:15.000Z',
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        durationSeconds: 5415,
        startedAt: '2026-10-05T07:00:00.000Z',
        stoppedAt: '2026-10-05T08:30:15.000Z',
        // The date is its own field: times alone do not move it.
        entryDate: '2026-10-05',
      });
    });

    it('accepts a duration equal to endTime - startTime and refuses one that differs', async () => {
      const id = await newEntry();
      const pair = { startTime: '2026-10-05T09:00:00Z', endTime: '2026-10-05T10:30:00Z' };
      for (const same of [
        { durationSeconds: 5400 },
        { duration: '1h30m' },
        { duration: '1:30', durationSeconds: 5400 },
      ]) {
        const res = await patch(id, { ...pair, ...same });
        expect(res.status, JSON.stringify(same)).toBe(200);
        expect(res.body.data.durationSeconds).toBe(5400);
      }
      await refusedWithoutWriting(id, [
        [{ ...pair, durationSeconds: 5401 }, 422, 'duration_conflict', ['durationSeconds']],
        [{ ...pair, duration: '1h' }, 422, 'duration_conflict', ['duration']],
        [
          { ...pair, duration: '1h', durationSeconds: 60 },
          422,
          'duration_conflict',
          ['durationSeconds', 'duration'],
        ],
        // The pair decides even where durationSeconds would win over duration.
        [
          { ...pair, duration: '1h', durationSeconds: 5400 },
          422,
          'duration_conflict',
          ['duration'],
        ],
      ]);
    });

    it('needs startTime and endTime together, end after start, whole seconds, at most 24 h', async () => {
      const id = await newEntry();
      const start = '2026-10-05T09:00:00Z';
      await refusedWithoutWriting(id, [
        [{ startTime: start }, 422, 'validation_failed', ['endTime']],
        [{ endTime: start }, 422, 'validation_failed', ['startTime']],
        [{ startTime: start, endTime: start }, 422, 'validation_failed', ['endTime']],
        [
          { startTime: start, endTime: '2026-10-05T08:59:59Z' },
          422,
          'validation_failed',
          ['endTime'],
        ],
        [
          { startTime: start, endTime: '2026-10-05T09:00:00.500Z' },
          422,
          'validation_failed',
          ['endTime'],
        ],
        [
          { startTime: start, endTime: '2026-10-05T09:00:01.0001Z' },
          422,
          'validation_failed',
          ['endTime'],
        ],
        [
          { startTime: start, endTime: '2026-10-06T09:00:01Z' },
          422,
          'validation_failed',
          ['endTime'],
        ],
        [
          { startTime: '2026-10-05 09:00', endTime: start },
          422,
          'validation_failed',
          ['startTime'],
        ],
        [
          { startTime: '2026-10-05T09:00:00', endTime: start },
          422,
          'validation_failed',
          ['startTime'],
        ],
        [{ startTime: null, endTime: null }, 422, 'validation_failed', ['startTime', 'endTime']],
      ]);
      const day = await patch(id, { startTime: start, endTime: '2026-10-06T09:00:00.000000Z' });
      expect(day.status).toBe(200);
      expect(day.body.data.durationSeconds).toBe(86_400);
    });

    it('keeps startedAt and moves stoppedAt when a duration is set on an entry with times', async () => {
      const id = await newEntry(ids.member, {
        started_at: new Date('2026-10-05T09:00:00Z'),
        stopped_at: new Date('2026-10-05T10:00:00Z'),
      });
      const res = await patch(id, { duration: '2h' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        durationSeconds: 7200,
        startedAt: '2026-10-05T09:00:00.000Z',
        stoppedAt: '2026-10-05T11:00:00.000Z',
      });
    });

    it("refuses to set a running entry's duration, but edits its other fields", async () => {
      await refusedWithoutWriting(more.running, [
        [{ durationSeconds: 60 }, 422, 'validation_failed', ['durationSeconds']],
        [{ duration: '1h' }, 422, 'validation_failed', ['duration']],
        [
          { startTime: '2026-10-03T08:00:00Z', endTime: '2026-10-03T09:00:00Z' },
          422,
          'validation_failed',
          ['startTime', 'endTime'],
        ],
      ]);
      const res = await patch(more.running, { note: 'still going', entryDate: '2026-10-04' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        isRunning: true,
        durationSeconds: 0,
        stoppedAt: null,
        note: 'still going',
        entryDate: '2026-10-04',
      });
    });
  });
});
