import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type Body } from '../support/api-request.ts';
import { registeredApiRoutes } from '../support/api-routes.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

/**
 * A write's body is a JSON object (docs/api.md, Requests): any other JSON value is 422
 * `validation_failed` naming `body`, on every write route the app registers, and writes
 * nothing. The routes are read from the app's route tree and their bodies from the document
 * it serves, so a write route added later is covered without a change here.
 */

/** Every JSON value that is not an object, as its text. */
const NOT_OBJECTS = ['1', '-2.5', '0', '"x"', '""', '[]', '[{}]', 'null', 'true', 'false'];

/** A record behind each `/{resource}/{id}` path, so that the record's 404 does not come first. */
const RECORDS: Record<string, string> = {
  clients: ids.client,
  expenses: ids.expense,
  tasks: ids.task,
  'time-entries': ids.entry2,
  // Made in beforeAll.
  webhooks: '',
};

/** Writes that take no body besides the DELETEs: an action on a record. */
const BODILESS_ACTIONS = ['POST /webhooks/{id}/rotate-secret'];

const WRITE_METHODS = ['POST', 'PATCH', 'PUT', 'DELETE'];

describe('a write body that is not a JSON object', () => {
  let h: Harness;
  let writes: { method: string; path: string; takesBody: boolean }[];
  let keys = 0;

  beforeAll(async () => {
    h = await createHarness({ rateLimit: { requests: 100_000 } });
    await h.importObject(smallSnapshot());
    await h.sync();
    const webhook = await apiRequest(h.app, {
      method: 'POST',
      path: '/webhooks',
      token: TOKENS.owner,
      body: { url: 'https://93.184.216.34/hook' },
    });
    RECORDS.webhooks = (webhook.body.data as Body).id as string;
    const document = (
      await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
    ).json<Body>();
    writes = registeredApiRoutes(h.app)
      .map((route) => route.split(' ') as [string, string])
      .filter(([method]) => WRITE_METHODS.includes(method))
      .map(([method, path]) => ({
        method,
        path,
        takesBody: document.paths[path]?.[method.toLowerCase()]?.requestBody !== undefined,
      }));
  });
  afterAll(() => h.close());

  /** What the writable tables hold, to tell that a refused write changed nothing. */
  const stored = async () =>
    (
      await h.pool.query<{ t: string; id: string; updated_at: Date }>(
        `SELECT 'clients' AS t, id, updated_at FROM clients
         UNION ALL SELECT 'expenses', id, updated_at FROM expenses
         UNION ALL SELECT 'tasks', id, updated_at FROM tasks
         UNION ALL SELECT 'time_entries', id, updated_at FROM time_entries
         ORDER BY 1, 2`,
      )
    ).rows;

  it('finds the write routes: every POST, PATCH and PUT takes a body', () => {
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual(
      expect.arrayContaining([
        'POST /clients',
        'PATCH /clients/{id}',
        'POST /expenses',
        'PATCH /expenses/{id}',
        'POST /tasks',
        'PATCH /tasks/{id}',
        'PATCH /time-entries/{id}',
      ]),
    );
    // Only a DELETE may take no body (DELETE /tasks/{id} archives; it reads none), and an
    // action on a record (a webhook's new secret).
    const bodiless = writes.filter((w) => !w.takesBody);
    expect(
      bodiless.filter(
        (w) => w.method !== 'DELETE' && !BODILESS_ACTIONS.includes(`${w.method} ${w.path}`),
      ),
    ).toEqual([]);
  });

  it('answers 422 validation_failed naming body to a number, string, array, null or boolean, on every write route', async () => {
    const before = await stored();
    const answers: string[] = [];
    for (const { method, path } of writes.filter((w) => w.takesBody)) {
      const resource = /^\/([\w-]+)\/\{id\}(?:\/[\w-]+)?$/.exec(path)?.[1];
      const record = resource === undefined ? undefined : RECORDS[resource];
      expect(resource === undefined || record !== undefined, `a record for ${path}`).toBe(true);
      for (const body of NOT_OBJECTS) {
        const res = await apiRequest(h.app, {
          method: method as 'POST' | 'PATCH',
          path: path.replace('{id}', record ?? ''),
          token: TOKENS.owner,
          body,
          headers: { 'idempotency-key': `body-${++keys}` },
        });
        answers.push(
          `${method} ${path} ${body} -> ${res.status} ${String(res.body.error?.code)} ${JSON.stringify(res.body.error?.fields)}`,
        );
      }
    }
    expect(answers.length).toBe(writes.filter((w) => w.takesBody).length * NOT_OBJECTS.length);
    expect(
      answers.filter(
        (a) => !a.endsWith('-> 422 validation_failed {"body":"must be a JSON object"}'),
      ),
    ).toEqual([]);
    expect(await stored()).toEqual(before);
  });

  it('still takes an object: an empty PATCH of an expense or task answers 200', async () => {
    for (const path of [`/expenses/${ids.expense}`, `/tasks/${ids.task}`]) {
      const res = await apiRequest(h.app, { method: 'PATCH', path, token: TOKENS.owner, body: {} });
      expect(res.status, path).toBe(200);
    }
  });
});
