import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type Body } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

/**
 * A write builds its answer, the record as stored, and checks it against the schema its route
 * declares inside its transaction, before COMMIT (docs/api.md, "Data positions: what a write
 * guarantees"): a row the answer cannot carry makes the write answer 500 and leaves the store as
 * it was. The rows are written past the API, with the store's CHECK dropped, as an older store
 * or another tool may hold them.
 */
describe('a write whose answer cannot be built or checked', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  const send = (method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: object, key?: string) =>
    apiRequest(h.app, {
      method,
      path,
      token: TOKENS.owner,
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const storedTask = async () =>
    (
      await h.pool.query(
        'SELECT name, status, tags, updated_at, deleted_at FROM tasks WHERE id = $1',
        [ids.task],
      )
    ).rows[0] as Record<string, unknown>;
  /** Drops the CHECKs of `tasks` whose definition names the column. */
  const dropChecksOn = async (column: string) => {
    const { rows } = await h.pool.query<{ name: string }>(
      `SELECT conname AS name FROM pg_constraint
       WHERE conrelid = 'tasks'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE $1`,
      [`%${column}%`],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const { name } of rows) await h.pool.query(`ALTER TABLE tasks DROP CONSTRAINT "${name}"`);
  };
  const expectInternalError = (res: { status: number; body: Body }) => {
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toMatch(/\bat \S+:\d+|\.ts\b|SELECT|UPDATE/);
  };

  it('is refused by the store while its CHECK is in place', async () => {
    await expect(
      h.pool.query("UPDATE tasks SET tags = ARRAY['a', NULL] WHERE id = $1", [ids.task]),
    ).rejects.toThrow(/tasks_tags_no_null_elements/);
  });

  describe('a task whose tags hold NULL', () => {
    let before: Record<string, unknown>;
    beforeAll(async () => {
      await dropChecksOn('tags');
      await h.pool.query("UPDATE tasks SET tags = ARRAY['a', NULL] WHERE id = $1", [ids.task]);
      before = await storedTask();
      expect(before.tags).toEqual(['a', null]);
    });

    it('DELETE answers 500 naming the field, and does not archive it', async () => {
      const res = await send('DELETE', `/tasks/${ids.task}`);
      expectInternalError(res);
      expect(res.body.error.message).toMatch(/\btags\b.*not completed/);
      expect(await storedTask()).toEqual(before);
    });

    it('PATCH with a valid body answers 500 and changes nothing', async () => {
      expectInternalError(await send('PATCH', `/tasks/${ids.task}`, { name: 'Renamed' }));
      expect(await storedTask()).toEqual(before);
    });

    it('PATCH that replaces the tags answers the task', async () => {
      const res = await send('PATCH', `/tasks/${ids.task}`, { tags: ['b'] });
      expect(res.status).toBe(200);
      expect(res.body.data.tags).toEqual(['b']);
      expect((await storedTask()).tags).toEqual(['b']);
    });
  });

  describe('a record its schema refuses (a status outside its enum)', () => {
    beforeAll(async () => {
      await dropChecksOn('status');
      await h.pool.query("ALTER TABLE tasks ALTER COLUMN status SET DEFAULT 'ARCHIVED'");
      await h.pool.query("UPDATE tasks SET status = 'ARCHIVED' WHERE id = $1", [ids.task]);
    });

    it('PATCH answers 500 and changes nothing', async () => {
      const before = await storedTask();
      expectInternalError(await send('PATCH', `/tasks/${ids.task}`, { name: 'Renamed' }));
      expect(await storedTask()).toEqual(before);
    });

    it('POST answers 500, stores no task and keeps no key, so a retry runs again', async () => {
      const body = { projectId: ids.project, name: 'Never stored' };
      expectInternalError(await send('POST', '/tasks', body, 'failed-create'));
      const retry = await send('POST', '/tasks', body, 'failed-create');
      expectInternalError(retry);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      const stored = await h.pool.query(
        "SELECT (SELECT count(*)::int FROM tasks WHERE name = 'Never stored') AS tasks, (SELECT count(*)::int FROM idempotency_keys WHERE key = 'failed-create') AS keys",
      );
      expect(stored.rows[0]).toEqual({ tasks: 0, keys: 0 });
    });
  });
});
