import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DERIVED_TABLES } from '../../src/cli/derived-tables.ts';
import { buildApp } from '../../src/http/app.ts';
import { parseLsn } from '../../src/sync/lsn.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { apiRequest, type Body } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// Writes answer at their commit; reads wait for the data position they need (docs/api.md,
// "Data positions"). The sync stopped, with its 503s and the reads of other tokens, is tested
// in both sync modes by test/sync/sync-stall.test.ts.

const POSITION = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/;

describe('data positions: writes answer at commit, reads wait for them', () => {
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
    token: string,
    body?: object,
    headers: Record<string, string> = {},
  ) => apiRequest(h.app, { method, path, token, body, headers });
  const names = (res: { body: Body }) => (res.body.data as Body[]).map((c) => c.name as string);

  it('lets a token read each of its writes at once, with no header sent', async () => {
    // Back to back, no pause: each read must wait for the write before it.
    for (let i = 0; i < 15; i++) {
      const name = `Own write ${i} "quoted", back\\slash 🧾`;
      const created = await send('POST', '/clients', TOKENS.owner, { name });
      expect(created.status).toBe(201);
      expect(created.headers['x-data-position']).toMatch(POSITION);
      const id = created.body.data.id as string;
      const renamed = await send('PATCH', `/clients/${id}`, TOKENS.owner, { name: `${name} v2` });
      expect(renamed.status).toBe(200);
      const read = await send(
        'GET',
        `/clients?search=${encodeURIComponent(`Own write ${i} `)}`,
        TOKENS.owner,
      );
      expect(read.status).toBe(200);
      expect(names(read)).toEqual([`${name} v2`]);
    }
  });

  it('answers every GET of the read model with its position, at or past the write it waited for', async () => {
    const created = await send('POST', '/clients', TOKENS.owner, {
      name: `Position ${randomUUID()}`,
    });
    const written = parseLsn(created.headers['x-data-position'] as string);
    const read = await send('GET', '/clients', TOKENS.owner);
    expect(read.headers['x-data-as-of']).toBeDefined();
    expect(read.headers['x-data-position']).toMatch(POSITION);
    expect(parseLsn(read.headers['x-data-position'] as string)).toBeGreaterThanOrEqual(written);
  });

  it('shows another token’s write to a read that sends its position', async () => {
    const name = `Echoed ${randomUUID()}`;
    const created = await send('POST', '/clients', TOKENS.owner, { name });
    const read = await send(
      'GET',
      `/clients?search=${encodeURIComponent(name)}`,
      TOKENS.admin,
      undefined,
      {
        'x-data-position': created.headers['x-data-position'] as string,
      },
    );
    expect(read.status).toBe(200);
    expect(names(read)).toEqual([name]);
  });

  it('answers 422 for a position that is not one', async () => {
    for (const bad of [
      '',
      'abc',
      '0/',
      '/1',
      '1/2/3',
      '0/123456789',
      'G/1',
      '0/1 ',
      '-1/0',
      '0x1/0',
    ]) {
      const res = await send('GET', '/clients', TOKENS.owner, undefined, {
        'x-data-position': bad,
      });
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(res.body.error).toMatchObject({
        code: 'validation_failed',
        fields: { 'X-Data-Position': expect.stringMatching(/position/) },
      });
    }
  });

  it('answers 422 for a position beyond the store’s, instead of waiting for ever', async () => {
    const res = await send('GET', '/team-payouts/summary', TOKENS.owner, undefined, {
      'x-data-position': 'FFFFFFFF/FFFFFFFF',
    });
    expect(res.status).toBe(422);
    expect(res.body.error.fields['X-Data-Position']).toMatch(/beyond/);
  });

  it('reads at once with a position already passed, whatever its case', async () => {
    const read = await send('GET', '/clients', TOKENS.owner);
    const position = (read.headers['x-data-position'] as string).toLowerCase();
    const again = await send('GET', '/projects', TOKENS.member, undefined, {
      'x-data-position': position,
    });
    expect(again.status).toBe(200);
  });

  it('carries a position on every write answer: a PATCH of a time entry', async () => {
    const res = await send('PATCH', `/time-entries/${ids.entry1}`, TOKENS.owner, {
      note: 'a note, "quoted"\nover two lines',
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-data-position']).toMatch(POSITION);
  });

  it('documents the header on every GET of the read model and on every write’s success', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const doc = res.json<Body>();
    let gets = 0;
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Body>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const success = Object.entries(operation.responses as Record<string, Body>).filter(
          ([status]) => status.startsWith('2'),
        );
        for (const [, response] of success)
          expect(response.headers?.['X-Data-Position'], `${method} ${path}`).toBeDefined();
        const parameter = ((operation.parameters ?? []) as Body[]).find(
          (p) => p.in === 'header' && p.name === 'X-Data-Position',
        );
        // GETs that read the store, not the read model, wait for no position.
        if (method === 'get' && path !== '/me' && !path.startsWith('/webhooks')) {
          gets++;
          expect(parameter, `${method} ${path}`).toBeDefined();
          expect(operation.responses['422'], `${method} ${path}`).toBeDefined();
          expect(operation.responses['503'], `${method} ${path}`).toBeDefined();
        } else {
          expect(parameter, `${method} ${path}`).toBeUndefined();
        }
      }
    }
    expect(gets).toBeGreaterThanOrEqual(14);
  });
});

describe('data positions on a server that has just started', () => {
  const names = (res: { body: Body }) => (res.body.data as Body[]).map((c) => c.name as string);
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ live: true });
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  it('holds a read that sends a position until its sync knows the read model has passed it', async () => {
    // The server before stops (killed, say) once a write has committed, before its read model
    // showed it; the next server serves the same read model, its sync not started yet.
    await h.syncService!.stop();
    const write = await apiRequest(h.app, {
      method: 'PATCH',
      path: `/clients/${ids.client}`,
      token: TOKENS.owner,
      body: { name: 'Acme, written before the restart' },
    });
    expect(write.status).toBe(200);
    const position = write.headers['x-data-position'] as string;
    const sync = new SyncService({
      pool: h.pool,
      url: (h.pool.options as { connectionString: string }).connectionString,
      readModel: h.readModel,
      derived: DERIVED_TABLES,
      status: h.status,
    });
    const app = await buildApp({
      db: h.db,
      readModel: h.readModel,
      status: h.status,
      tokenEnv: 'test',
      tokenIdentities: h.tokenIdentities,
      sync,
      positionWaitMs: 300,
    });
    try {
      const read = () =>
        apiRequest(app, {
          method: 'GET',
          path: '/clients',
          token: TOKENS.owner,
          headers: { 'x-data-position': position },
        });
      // Not the read model as it stood before the write: 503 once the wait is over.
      const early = await read();
      expect(early.status).toBe(503);
      expect(early.body.error.code).toBe('read_model_unavailable');
      await sync.start();
      const later = await read();
      expect(later.status).toBe(200);
      expect(names(later)).toContain('Acme, written before the restart');
    } finally {
      await app.close();
      await sync.stop();
    }
  });
});
