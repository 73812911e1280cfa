import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { openReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { parseLsn } from '../../src/sync/lsn.ts';
import { dropNodeSlots, listNodeSlots } from '../../src/sync/replication/nodes.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { apiRequest, type Body } from '../support/api-request.ts';
import { startApiNode, type ApiNode } from '../support/api-node.ts';
import { dropIdleSlots } from '../support/databases.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// Two API nodes on one store, each with its own read model following it through its own
// replication slot (docs/scale-out.md): a write through one node answers its commit position,
// and a read through the other that sends that position back waits until its own read model
// has passed it, then shows the write.

describe('two API nodes following one store', () => {
  let h: Harness;
  const nodes: ApiNode[] = [];

  beforeAll(async () => {
    // The harness is the store (its database and pool); each node has its own read model.
    h = await createHarness();
    await h.importObject(smallSnapshot());
    for (const name of ['node_a', 'node_b']) nodes.push(await startApiNode(h, name));
  });
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await dropIdleSlots(h.pool);
    await h.close();
  });

  const [a, b] = [() => nodes[0]!, () => nodes[1]!];
  const names = (res: { body: Body }) => (res.body.data as Body[]).map((c) => c.name as string);

  it('gives each node a replication slot of its own, named after it', async () => {
    const { rows } = await h.pool.query<{ slot_name: string }>(
      'SELECT slot_name FROM pg_replication_slots WHERE database = current_database() ORDER BY 1',
    );
    const slots = rows.map((r) => r.slot_name);
    expect(slots).toHaveLength(2);
    expect(slots[0]).toMatch(/^ledgerline_node_a_[0-9a-f]{12}$/);
    expect(slots[1]).toMatch(/^ledgerline_node_b_[0-9a-f]{12}$/);
  });

  it('names the node in /healthz and in every metric', async () => {
    for (const node of nodes) {
      const health = await node.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      expect(health.json<Body>().node).toBe(node.name);
      const metrics = await node.app.inject({ method: 'GET', url: '/metrics' });
      const samples = metrics.body.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
      expect(samples.length).toBeGreaterThan(20);
      for (const sample of samples) expect(sample, sample).toContain(`node="${node.name}"`);
    }
  });

  it("shows a write through one node to a read through the other that sends the write's position", async () => {
    for (let i = 0; i < 10; i++) {
      const [writer, reader] = i % 2 === 0 ? [a(), b()] : [b(), a()];
      const name = `Across nodes ${i} ${randomUUID()}, "quoted" \\ 🧾`;
      const created = await apiRequest(writer.app, {
        method: 'POST',
        path: '/clients',
        token: TOKENS.owner,
        body: { name },
      });
      expect(created.status).toBe(201);
      const position = created.headers['x-data-position'] as string;
      expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      // Another token (no write of its own on the reader) that carries the position along.
      const read = await apiRequest(reader.app, {
        method: 'GET',
        path: `/clients?search=${encodeURIComponent(name)}`,
        token: TOKENS.admin,
        headers: { 'x-data-position': position },
      });
      expect(read.status).toBe(200);
      expect(names(read)).toEqual([name]);
    }
  });

  it('shows a change of a record through one node to a read of it through the other with the position', async () => {
    const renamed = await apiRequest(b().app, {
      method: 'PATCH',
      path: `/clients/${ids.client}`,
      token: TOKENS.owner,
      body: { name: 'Acme, renamed through node b' },
    });
    expect(renamed.status).toBe(200);
    const read = await apiRequest(a().app, {
      method: 'GET',
      path: `/clients?search=${encodeURIComponent('renamed through node b')}`,
      token: TOKENS.admin,
      headers: { 'x-data-position': renamed.headers['x-data-position'] as string },
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual([
      expect.objectContaining({ id: ids.client, name: 'Acme, renamed through node b' }),
    ]);
  });

  it('creates one record for one Idempotency-Key sent through two nodes at once', async () => {
    const key = randomUUID();
    const name = `Once through two nodes ${key}`;
    const send = (node: ApiNode) =>
      apiRequest(node.app, {
        method: 'POST',
        path: '/clients',
        token: TOKENS.owner,
        body: { name },
        headers: { 'idempotency-key': key },
      });
    const answers = await Promise.all([send(a()), send(b())]);
    // One creates; the other answers the same record again, or 409 while the first still runs.
    const created = answers.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of answers) expect([201, 409]).toContain(r.status);
    expect(new Set(created.map((r) => r.body.data.id as string)).size).toBe(1);
    const { rows } = await h.pool.query('SELECT id FROM clients WHERE name = $1', [name]);
    expect(rows).toHaveLength(1);
    // Sent again through either node, later: the first answer, replayed.
    for (const node of nodes) {
      const again = await send(node);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.data.id).toBe(rows[0].id);
    }
  });

  it('pages a list on one node with the cursor the other gave', async () => {
    // Every page read at or past the newest write, whichever node answers it.
    const mark = await apiRequest(b().app, {
      method: 'POST',
      path: '/clients',
      token: TOKENS.owner,
      body: { name: 'Cursor mark' },
    });
    const headers = { 'x-data-position': mark.headers['x-data-position'] as string };
    const seen: string[] = [];
    let cursor: string | null = null;
    let turn = 0;
    do {
      const node = turn++ % 2 === 0 ? a() : b();
      const res: { status: number; body: Body } = await apiRequest(node.app, {
        method: 'GET',
        path: `/clients?limit=2&sort=name${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        token: TOKENS.owner,
        headers,
      });
      expect(res.status).toBe(200);
      seen.push(...names(res));
      cursor = res.body.pagination.nextCursor as string | null;
    } while (cursor);
    expect(turn).toBeGreaterThan(2);
    const whole = await apiRequest(a().app, {
      method: 'GET',
      path: '/clients?limit=100&sort=name',
      token: TOKENS.owner,
      headers,
    });
    expect(seen).toContain('Cursor mark');
    expect(seen).toEqual(names(whole));
  });

  it("lists each node's slot with its lag, and drops the slots of a node gone for good, never of one running", async () => {
    const listed = await listNodeSlots(h.pool);
    expect(listed.map((s) => [s.node, s.active])).toEqual([
      ['node_a', true],
      ['node_b', true],
    ]);
    for (const slot of listed) {
      expect(slot.lagBytes).toBeGreaterThanOrEqual(0n);
      expect(slot.retainedBytes).toBeGreaterThanOrEqual(0n);
      expect(slot.walStatus).toBe('reserved');
    }
    await expect(dropNodeSlots(h.pool, 'node_b')).rejects.toThrow(/in use by a running node/);
    expect(await dropNodeSlots(h.pool, 'node_x')).toEqual([]);

    // node_b goes away for good: its slot idles, keeping WAL, until it is dropped.
    await b().stop();
    const idle = (await listNodeSlots(h.pool)).find((s) => s.node === 'node_b')!;
    expect(idle.active).toBe(false);
    expect(idle.inactiveSince).toBeInstanceOf(Date);
    expect(await dropNodeSlots(h.pool, 'node_b')).toEqual([idle.slot]);
    expect((await listNodeSlots(h.pool)).map((s) => s.node)).toEqual(['node_a']);
    // Node a still follows the store.
    const created = await apiRequest(a().app, {
      method: 'POST',
      path: '/clients',
      token: TOKENS.owner,
      body: { name: 'After node b left' },
    });
    expect(created.status).toBe(201);
    const read = await apiRequest(a().app, {
      method: 'GET',
      path: `/clients?search=${encodeURIComponent('After node b left')}`,
      token: TOKENS.owner,
    });
    expect(names(read)).toEqual(['After node b left']);
  });
  it('answers /healthz 503 while a node that comes back catches up on the stream, 200 once it has', async () => {
    // Node c loads its read model, then is down while writes go on through node a.
    const url = (h.pool.options as { connectionString: string }).connectionString;
    const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    const status = new ReadModelStatus();
    const options = {
      pool: h.pool,
      url,
      readModel,
      derived: DERIVED_TABLES,
      status,
      nodeName: 'node_c',
    };
    await new SyncService(options).catchUp();
    let position = '';
    for (let i = 0; i < 20; i++) {
      const created = await apiRequest(a().app, {
        method: 'POST',
        path: '/clients',
        token: TOKENS.owner,
        body: { name: `While node c was down ${i}` },
      });
      expect(created.status).toBe(201);
      position = created.headers['x-data-position'] as string;
    }
    // It comes back: loaded (its read model answers), but behind the store.
    const sync = new SyncService(options);
    const app = await buildApp({
      db: h.db,
      readModel,
      status,
      tokenEnv: 'test',
      sync,
      nodeName: 'node_c',
      joinLagMs: 200,
    });
    try {
      const joining = await app.inject({ method: 'GET', url: '/healthz' });
      expect(joining.statusCode).toBe(503);
      expect(joining.json<Body>()).toMatchObject({ status: 'joining', node: 'node_c' });
      expect((joining.json<Body>().sync as Body).lagBytes).toBeGreaterThan(0);

      await sync.start();
      let health = joining;
      for (let i = 0; i < 100 && health.statusCode !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        health = await app.inject({ method: 'GET', url: '/healthz' });
      }
      expect(health.json<Body>()).toMatchObject({ status: 'ok', node: 'node_c' });
      expect(health.statusCode).toBe(200);
      // Joined means caught up: what was written while it was down is there.
      expect(sync.position && parseLsn(sync.position) >= parseLsn(position)).toBe(true);
      const read = await apiRequest(app, {
        method: 'GET',
        path: `/clients?search=${encodeURIComponent('While node c was down 19')}`,
        token: TOKENS.owner,
      });
      expect(names(read)).toEqual(['While node c was down 19']);
    } finally {
      await app.close();
      await sync.stop();
      readModel.close();
    }
  });
});

describe('JOIN_LAG_SECONDS', () => {
  it('takes seconds, fractions too, and refuses what is not a bound', () => {
    expect(loadConfig({}).joinLagMs).toBe(1000);
    expect(loadConfig({ JOIN_LAG_SECONDS: '0.25' }).joinLagMs).toBe(250);
    for (const [value, message] of [
      ['0', 'JOIN_LAG_SECONDS must be more than 0'],
      ['61', 'JOIN_LAG_SECONDS must be at most 60'],
      ['soon', 'JOIN_LAG_SECONDS must be a number of seconds'],
    ] as const)
      expect(() => loadConfig({ JOIN_LAG_SECONDS: value }), value).toThrow(message);
  });
});
