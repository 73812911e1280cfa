import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/event-types.ts';
import { apiRequest, type ApiRequest, type Body } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// Managing webhook endpoints (docs/webhooks.md): Owner and Admin tokens with the write scope
// add, list, read, change, rotate and remove them; a target must be an http(s) URL without
// credentials whose host resolves to public addresses only, unless WEBHOOK_ALLOW_PRIVATE.

/** A public address, written as an IP so that no name needs resolving here. */
const PUBLIC = 'https://93.184.216.34/hooks/ledgerline?a=1&b="q"';

describe('webhook endpoints', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(async () => h?.close());

  const call = (request: Omit<ApiRequest, 'token'> & { token?: string }) =>
    apiRequest(h.app, { token: TOKENS.owner, ...request });
  const add = (body: object, headers: Record<string, string> = {}) =>
    call({ method: 'POST', path: '/webhooks', body, headers });

  it('adds an endpoint for every event, its secret shown once as Standard Webhooks gives it', async () => {
    const created = await add({ url: PUBLIC, description: 'Ledger, "sync" \\ 🧾' });
    expect(created.status).toBe(201);
    const data = created.body.data as Body;
    expect(data).toMatchObject({
      url: PUBLIC,
      events: null,
      description: 'Ledger, "sync" \\ 🧾',
      enabled: true,
      status: 'active',
      failingSince: null,
      previousSecretUntil: null,
    });
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from((data.secret as string).slice(6), 'base64')).toHaveLength(32);
    const read = await call({ method: 'GET', path: `/webhooks/${data.id as string}` });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(
      Object.fromEntries(Object.entries(data).filter(([k]) => k !== 'secret')),
    );
  });

  it('refuses an unknown event, a target that is not http(s), carries credentials or is private', async () => {
    const cases: [object, string, string][] = [
      [{ url: PUBLIC, events: ['client.created', 'client.exploded'] }, 'events', 'client.exploded'],
      [{ url: PUBLIC, events: [] }, 'events', 'at least one'],
      [{ url: 'ftp://93.184.216.34/x' }, 'url', 'http or https'],
      [{ url: 'not a url' }, 'url', 'absolute http or https URL'],
      [{ url: 'https://user:pw@93.184.216.34/x' }, 'url', 'credentials'],
      [{ url: 'http://127.0.0.1:9/x' }, 'url', 'loopback, link-local or private'],
      [{ url: 'http://[::1]:9/x' }, 'url', 'loopback, link-local or private'],
      [{ url: 'http://169.254.169.254/latest' }, 'url', 'loopback, link-local or private'],
      [{ url: 'http://10.1.2.3/x' }, 'url', 'loopback, link-local or private'],
      [{ url: 'http://localhost:9/x' }, 'url', 'loopback, link-local or private'],
      [{ url: PUBLIC, colour: 'red' }, 'body', ''],
    ];
    for (const [body, field, message] of cases) {
      const res = await add(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const fields = (res.body.error as Body).fields as Record<string, string>;
      expect(Object.keys(fields).join(), JSON.stringify(body)).toContain(
        field === 'body' ? '' : field,
      );
      if (message) expect(fields[field], JSON.stringify(body)).toContain(message);
    }
  });

  it('is for Owner and Admin tokens with the write scope only', async () => {
    // The Admin token of this workspace has the read scope only.
    for (const token of [TOKENS.manager, TOKENS.member, TOKENS.admin]) {
      expect(
        (await call({ method: 'POST', path: '/webhooks', token, body: { url: PUBLIC } })).status,
      ).toBe(403);
      expect((await call({ method: 'GET', path: '/webhooks', token })).status).toBe(403);
    }
  });

  it('creates one endpoint for one Idempotency-Key, and answers the same after', async () => {
    const key = randomUUID();
    const first = await add(
      { url: PUBLIC, events: ['invoice.created'] },
      { 'idempotency-key': key },
    );
    const again = await add(
      { url: PUBLIC, events: ['invoice.created'] },
      { 'idempotency-key': key },
    );
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('pages the list with its cursor, and changes, rotates, replays and removes an endpoint', async () => {
    for (let i = 0; i < 3; i++) expect((await add({ url: `${PUBLIC}&n=${i}` })).status).toBe(201);
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call({
        method: 'GET',
        path: `/webhooks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      });
      expect(page.status).toBe(200);
      all.push(...(page.body.data as Body[]).map((w) => w.id as string));
      cursor = (page.body.pagination as Body).nextCursor as string | null;
    } while (cursor);
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(new Set(all).size).toBe(all.length);

    const id = all[0]!;
    const changed = await call({
      method: 'PATCH',
      path: `/webhooks/${id}`,
      body: {
        events: ['team_bill.approved', 'client.created', 'client.created'],
        enabled: false,
        description: '',
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      events: ['client.created', 'team_bill.approved'],
      enabled: false,
      status: 'disabled',
      description: null,
    });
    const back = await call({
      method: 'PATCH',
      path: `/webhooks/${id}`,
      body: { events: null, enabled: true },
    });
    expect(back.body.data).toMatchObject({ events: null, status: 'active' });
    expect(
      (await call({ method: 'PATCH', path: `/webhooks/${randomUUID()}`, body: { url: 1 } })).status,
    ).toBe(404);
    expect(
      (await call({ method: 'PATCH', path: `/webhooks/${id}`, body: { url: 'http://127.0.0.1/' } }))
        .status,
    ).toBe(422);

    const rotated = await call({ method: 'POST', path: `/webhooks/${id}/rotate-secret` });
    expect(rotated.status).toBe(200);
    const until = Date.parse((rotated.body.data as Body).previousSecretUntil as string);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((rotated.body.data as Body).secret).toMatch(/^whsec_/);
    const shown = await call({ method: 'GET', path: `/webhooks/${id}` });
    expect((shown.body.data as Body).secret).toBeUndefined();

    const deliveries = await call({ method: 'GET', path: `/webhooks/${id}/deliveries` });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toEqual({ data: [], pagination: { limit: 50, nextCursor: null } });
    const replay = await call({
      method: 'POST',
      path: `/webhooks/${id}/replay`,
      body: { since: '2026-01-01T00:00:00Z' },
    });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ data: { queued: 0 } });
    expect(
      (await call({ method: 'POST', path: `/webhooks/${id}/replay`, body: { since: 'yesterday' } }))
        .status,
    ).toBe(422);

    const removed = await call({ method: 'DELETE', path: `/webhooks/${id}` });
    expect(removed.status).toBe(200);
    expect((await call({ method: 'GET', path: `/webhooks/${id}` })).status).toBe(404);
    expect((await call({ method: 'DELETE', path: `/webhooks/${id}` })).status).toBe(404);
  });

  it('knows every event type it may be sent', () => {
    expect(WEBHOOK_EVENT_TYPES).toContain('team_payment.reversed');
  });
});

describe('webhook endpoints with WEBHOOK_ALLOW_PRIVATE=true', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ webhookAllowPrivate: true });
    await h.importObject(smallSnapshot());
  });
  afterAll(async () => h?.close());

  it('takes a private target, still not one that is not http(s) or carries credentials', async () => {
    const post = (url: string) =>
      apiRequest(h.app, { method: 'POST', path: '/webhooks', token: TOKENS.owner, body: { url } });
    expect((await post('http://127.0.0.1:8999/receiver')).status).toBe(201);
    expect((await post('http://localhost:8999/receiver')).status).toBe(201);
    expect((await post('file:///etc/passwd')).status).toBe(422);
    expect((await post('http://a:b@127.0.0.1/')).status).toBe(422);
  });
});

describe('npm run cli -- webhooks', () => {
  let h: Harness;
  const saved = { ...process.env };
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    process.env.DATABASE_URL = (h.pool.options as { connectionString: string }).connectionString;
    process.env.WEBHOOK_ALLOW_PRIVATE = 'true';
  });
  afterAll(async () => {
    process.env = saved;
    await h?.close();
  });

  /** Runs the CLI with stdout and stderr captured. */
  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const write = (chunk: unknown) => (out.push(String(chunk)), true);
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation(write),
      vi.spyOn(process.stderr, 'write').mockImplementation(write),
    ];
    try {
      return { code: await runCli(argv), said: out.join('') };
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  };

  it('adds, lists, replays and removes an endpoint, and refuses a bad one in one line', async () => {
    const ws = ['--workspace', ids.workspace];
    const added = await cli(
      'webhooks',
      'add',
      ...ws,
      'http://127.0.0.1:9/cli',
      '--events',
      'client.created,task.updated',
      '--description',
      'From the CLI, "q"',
    );
    expect(added.code, added.said).toBe(0);
    const secret = /^whsec_\S+$/m.exec(added.said)?.[0];
    expect(secret).toBeDefined();
    const id = /Added webhook ([0-9a-f-]{36})/.exec(added.said)![1]!;
    const listed = await cli('webhooks', 'list', ...ws);
    expect(listed.said).toMatch(
      new RegExp(`^${id}  active         2  http://127\\.0\\.0\\.1:9/cli$`, 'm'),
    );
    const replayed = await cli('webhooks', 'replay', ...ws, '--since', '2026-01-01T00:00:00Z', id);
    expect(replayed.said).toContain(`Queued 0 events for webhook ${id}`);
    expect((await cli('webhooks', 'deliveries', ...ws, id)).code).toBe(0);
    for (const [argv, message] of [
      [['webhooks', 'add', ...ws, 'http://127.0.0.1:9/x', '--events', 'nope'], 'nope'],
      [['webhooks', 'add', ...ws, 'ftp://127.0.0.1/x'], 'url must be an http or https URL'],
      [['webhooks', 'add', '--workspace', 'x', 'http://127.0.0.1/x'], '--workspace must be a UUID'],
      [['webhooks', 'replay', ...ws, '--since', 'soon', id], '--since'],
      [['webhooks', 'remove', ...ws, randomUUID()], 'No webhook'],
    ] as const) {
      const res = await cli(...argv);
      expect(res.code, res.said).toBe(1);
      expect(res.said).toContain(message);
      expect(res.said).not.toMatch(/\n\s+at /);
    }
    expect((await cli('webhooks', 'remove', ...ws, id)).said).toContain(`Removed webhook ${id}`);
    expect((await cli('webhooks', 'list', ...ws)).said).not.toContain(id);
  });
});
