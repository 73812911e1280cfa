import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, type Body } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

describe('POST and PATCH /clients', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ live: true });
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  const send = (
    method: 'POST' | 'PATCH' | 'GET',
    path: string,
    body?: string | object,
    token = TOKENS.manager,
    headers: Record<string, string> = {},
  ) => apiRequest(h.app, { method, path, body, token, headers });

  it('creates a client (201) that the next GET already lists', async () => {
    const created = await send(
      'POST',
      '/clients',
      '{"name": "  Initech  ", "currency": "usd", "defaultRate": 150.10, "defaultTaxRate": "7.25", "email": "", "requirePoNumber": true}',
    );
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Initech',
      orgId: ids.workspace,
      currency: 'USD',
      defaultRate: '150.10',
      defaultTaxRate: '7.25',
      email: null,
      requirePoNumber: true,
      deletedAt: null,
    });
    const listed = await send('GET', '/clients?search=&sort=name');
    expect((listed.body.data as Body[]).map((c) => c.name as string)).toContain('Initech');
  });

  it('updates only the fields sent, and answers the updated record', async () => {
    const { body } = await send('POST', '/clients', { name: 'Hooli', phone: '+1 555', notes: 'n' });
    const id = body.data.id as string;
    const updated = await send('PATCH', `/clients/${id}`, { name: 'Hooli XYZ', notes: '' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Hooli XYZ', phone: '+1 555', notes: null });
    const listed = await send('GET', '/clients?sort=name');
    expect((listed.body.data as Body[]).find((c) => c.id === id)).toMatchObject({
      name: 'Hooli XYZ',
      notes: null,
    });
  });

  it("a rename reaches the clientName filter of the client's projects and invoices at once", async () => {
    // Another token reads: it sends the write's data position, which its reads wait for.
    let position: Record<string, string> = {};
    const listed = async (path: string) =>
      ((await send('GET', path, undefined, TOKENS.owner, position)).body.data as Body[]).map(
        (r) => r.id as string,
      );
    const rename = async (name: string) => {
      const res = await send('PATCH', `/clients/${ids.client}`, { name });
      expect(res.status).toBe(200);
      position = { 'x-data-position': res.headers['x-data-position'] as string };
    };
    expect(await listed('/projects?clientName=globex')).toEqual([ids.project]);
    await rename('Umbrella Corp');
    try {
      expect(await listed('/projects?clientName=BRELLA')).toEqual([ids.project]);
      expect(await listed('/invoices?clientName=brella')).toContain(ids.invoice);
      expect(await listed('/projects?clientName=globex')).toEqual([]);
      expect(await listed('/invoices?clientName=globex')).toEqual([]);
    } finally {
      await rename('Globex');
    }
    expect(await listed('/invoices?clientName=globex')).toContain(ids.invoice);
  });

  it('refuses bad values with 422 naming each field, and writes nothing', async () => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM clients')).rows[0]
      .n as number;
    for (const [body, fields] of [
      [{}, ['name']],
      [{ name: '   ' }, ['name']],
      [{ name: 'x'.repeat(201) }, ['name']],
      [{ name: 'A', currency: 'XYZ' }, ['currency']],
      [{ name: 'A', email: 'not-an-email' }, ['email']],
      [{ name: 'A', defaultRate: '-1' }, ['defaultRate']],
      [{ name: 'A', defaultRate: '1.12345' }, ['defaultRate']],
      [{ name: 'A', defaultRate: '1e3' }, ['defaultRate']],
      [{ name: 'A', defaultRate: '+1' }, ['defaultRate']],
      [{ name: 'A', defaultRate: 'NaN' }, ['defaultRate']],
      [{ name: 'A', defaultRate: ' 1' }, ['defaultRate']],
      [{ name: 'A', requirePoNumber: 'yes' }, ['requirePoNumber']],
    ] as const) {
      const res = await send('POST', '/clients', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(Object.keys(res.body.error.fields as object)).toEqual(fields);
    }
    expect((await send('POST', '/clients', '{"name": "A", "defaultRate": 1e3}')).status).toBe(422);
    expect((await send('POST', '/clients', '[1]')).status).toBe(422);
    const after = (await h.pool.query('SELECT count(*)::int AS n FROM clients')).rows[0]
      .n as number;
    expect(after).toBe(before);
  });

  it('answers 400 for malformed JSON and 415 for another media type', async () => {
    const bad = await send('POST', '/clients', '{"name": ');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('malformed_json');
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: { authorization: `Bearer ${TOKENS.manager}`, 'content-type': 'text/plain' },
      payload: 'name=A',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json<Body>().error.code).toBe('unsupported_media_type');
  });

  it('is for Managers and up with the write scope; a foreign or unknown id is 404', async () => {
    expect((await send('POST', '/clients', { name: 'M' }, TOKENS.member)).status).toBe(403);
    expect((await send('POST', '/clients', { name: 'M' }, TOKENS.admin)).status).toBe(403);
    for (const id of ['31000000-0000-4000-8000-00000000dead', 'nope']) {
      const res = await send('PATCH', `/clients/${id}`, { name: 'X' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('replays a create with the same Idempotency-Key instead of creating twice', async () => {
    const key = { 'idempotency-key': 'client-create-1' };
    const first = await send('POST', '/clients', { name: 'Once Ltd' }, TOKENS.manager, key);
    const again = await send('POST', '/clients', { name: 'Once Ltd' }, TOKENS.manager, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const { rows } = await h.pool.query(
      "SELECT count(*)::int AS n FROM clients WHERE name = 'Once Ltd'",
    );
    expect(rows[0].n).toBe(1);
  });
});
