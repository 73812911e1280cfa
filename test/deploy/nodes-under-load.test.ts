import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKysely, createPool } from '../../src/store/database.ts';
import { createToken } from '../../src/tokens/token.repository.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import {
  balancerUp,
  killNode,
  nodeHealth,
  nodeJoined,
  startBalancer,
  startNodeProcess,
  stopNode,
  type Balancer,
  type NodeProcess,
} from '../support/node-cluster.ts';
import { freePort } from '../support/server-process.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';

// Three API nodes in processes of their own behind deploy/haproxy.cfg, under reads and writes:
// one is killed with SIGKILL, and a fourth joins. No acknowledged write is lost, every read
// that sends a write's position shows that write, only writes that cannot be sent again fail
// (and only those in flight at the kill), and the joining node takes traffic only once its
// /healthz answers 200. bench/nodes.bench.ts measures the same run for 60 s.

/** One request of the load, as the client saw it. */
interface Sent {
  kind: 'write-with-key' | 'write-without-key' | 'read-at-position';
  status: number;
  servedBy: string | null;
  startedAt: number;
  endedAt: number;
}

describe('three node processes behind HAProxy, one killed and one joining', () => {
  let drop: () => Promise<void>;
  let pool: ReturnType<typeof createPool>;
  let url: string;
  const nodes: NodeProcess[] = [];
  let balancer: Balancer;
  let joinerPort: number;
  const tokens: string[] = [];

  beforeAll(async () => {
    const database = await createTestDatabase();
    ({ url, drop } = database);
    pool = createPool(url);
    await importObject(pool, smallSnapshot());
    const db = createKysely(pool);
    // Enough tokens that each node holds some of them by the balancer's hash.
    for (let i = 0; i < 12; i++)
      tokens.push(
        (
          await createToken(db, {
            workspaceId: ids.workspace,
            userId: ids.owner,
            scopes: ['read', 'write'],
            env: 'test',
          })
        ).token,
      );
    for (const name of ['node_a', 'node_b', 'node_c'])
      nodes.push(await startNodeProcess(name, url));
    for (const node of nodes) await nodeJoined(node);
    joinerPort = await freePort();
    balancer = await startBalancer(
      [...nodes, { name: 'node_d', port: joinerPort }].map((n) => ({ name: n.name, port: n.port })),
      { servedBy: true },
    );
    await balancerUp(balancer);
  });
  afterAll(async () => {
    await balancer?.stop();
    for (const node of nodes) await stopNode(node);
    if (pool) {
      await dropIdleSlots(pool);
      await pool.end();
    }
    await drop?.();
  });

  const call = async (
    kind: Sent['kind'],
    token: string,
    method: string,
    route: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Sent & { json: { data?: { id?: string } }; position: string | null }> => {
    const startedAt = performance.now();
    try {
      const res = await fetch(`${balancer.base}/api/v1${route}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...init.headers,
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const text = await res.text();
      return {
        kind,
        status: res.status,
        servedBy: res.headers.get('x-served-by'),
        startedAt,
        endedAt: performance.now(),
        json: (text.startsWith('{') ? JSON.parse(text) : {}) as { data?: { id?: string } },
        position: res.headers.get('x-data-position'),
      };
    } catch {
      return {
        kind,
        status: 0,
        servedBy: null,
        startedAt,
        endedAt: performance.now(),
        json: {},
        position: null,
      };
    }
  };

  it('loses no acknowledged write, keeps reads at their position, and takes the joining node in only once it has joined', async () => {
    const sent: Sent[] = [];
    const acknowledged: { id: string; name: string }[] = [];
    const stale: string[] = [];
    let stopping = false;

    // Four writers, each writing a client and then reading it back through the balancer with
    // the write's position; every third write carries no Idempotency-Key.
    const writer = async (w: number) => {
      for (let i = 0; !stopping; i++) {
        const token = tokens[(w * 3 + i) % tokens.length]!;
        const name = `Load ${w}-${i} ${randomUUID()}, "q" \\ 🧾`;
        const withKey = i % 3 !== 2;
        const created = await call(
          withKey ? 'write-with-key' : 'write-without-key',
          token,
          'POST',
          '/clients',
          { body: { name }, headers: withKey ? { 'idempotency-key': randomUUID() } : {} },
        );
        sent.push(created);
        if (created.status !== 201) continue;
        const id = created.json.data!.id!;
        acknowledged.push({ id, name });
        // Another token, so its node need not be the writer's.
        const read = await call(
          'read-at-position',
          tokens[(w * 3 + i + 1) % tokens.length]!,
          'GET',
          `/clients?search=${encodeURIComponent(name)}`,
          { headers: { 'x-data-position': created.position! } },
        );
        sent.push(read);
        const shown = (read.json.data as unknown as { id: string }[] | undefined) ?? [];
        if (read.status !== 200 || shown.length !== 1 || shown[0]!.id !== id)
          stale.push(
            `${read.status} from ${read.servedBy} for ${id}, written through ${created.servedBy} at ${created.position}`,
          );
      }
    };

    // The joining node's /healthz, as the balancer's checks see it.
    const joinerHealth: { at: number; status: number }[] = [];
    const joining: { node?: NodeProcess } = {};
    const watchJoiner = async () => {
      while (!stopping) {
        if (joining.node)
          joinerHealth.push({
            at: performance.now(),
            status: (await nodeHealth(joining.node)).status,
          });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    const load = Promise.all([0, 1, 2, 3].map(writer).concat(watchJoiner()));
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    // The node that answers the first token goes, as a crash would take it.
    const home = sent.find((s) => s.servedBy !== null)!.servedBy!;
    const victim = nodes.find((n) => n.name === home)!;
    const killedAt = performance.now();
    await killNode(victim);
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    // A fourth node joins while the writes go on.
    const joiner = await startNodeProcess('node_d', url, { port: joinerPort });
    joining.node = joiner;
    nodes.push(joiner);
    await nodeJoined(joiner);
    // Unauthenticated requests are balanced round robin: the joiner is asked once it is in.
    let reached = false;
    for (let i = 0; i < 200 && !reached; i++) {
      const res = await fetch(`${balancer.base}/healthz`);
      reached = res.headers.get('x-served-by') === 'node_d';
      if (!reached) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    stopping = true;
    await load;

    expect(reached, 'the balancer sends the joined node traffic').toBe(true);
    // Nothing served by the joiner before its /healthz first answered 200.
    const joinedAt = joinerHealth.find((h) => h.status === 200)!.at;
    expect(joinerHealth.some((h) => h.status !== 200 && h.at < joinedAt)).toBe(true);
    expect(sent.filter((s) => s.servedBy === 'node_d' && s.endedAt < joinedAt)).toEqual([]);

    // Every acknowledged write is in the store, and through the balancer.
    expect(acknowledged.length).toBeGreaterThan(20);
    const { rows } = await pool.query<{ id: string; name: string }>(
      'SELECT id, name FROM clients WHERE id = ANY($1::uuid[])',
      [acknowledged.map((a) => a.id)],
    );
    expect(new Map(rows.map((r) => [r.id, r.name]))).toEqual(
      new Map(acknowledged.map((a) => [a.id, a.name])),
    );
    // Every read that sent a write's position showed that write.
    expect(stale).toEqual([]);
    // What failed: only writes HAProxy may not send again, in flight when the node was killed.
    const failed = sent.filter((s) => s.status !== 200 && s.status !== 201);
    for (const f of failed) {
      expect(f.kind, JSON.stringify(f)).toBe('write-without-key');
      expect(f.startedAt).toBeLessThan(killedAt);
    }
    // At most one request of each writer was in flight.
    expect(failed.length).toBeLessThanOrEqual(4);
  });
});
