import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiNode, type ApiNode } from '../support/api-node.ts';
import { dropIdleSlots } from '../support/databases.ts';
import { balancerUp, startBalancer, type Balancer } from '../support/node-cluster.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { freePort } from '../support/server-process.ts';
import { smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// deploy/haproxy.cfg through a real HAProxy (Debian's package; `.ci/run` installs it), in
// front of three API nodes on one store: a token's requests stay on one node, a node that
// goes away is routed around, and a read a node refuses with 503 is answered by another.
// `npm run test:deploy` runs it; `npm test` does not, so that it needs nothing installed.

/** A node of the test, listening, with the requests it answered under /api/v1. */
interface Node extends ApiNode {
  port: number;
  answered: number;
  /** Whether it closes the connection of each POST it receives, as a node that dies would. */
  dropsPosts: boolean;
  /** POSTs it dropped so. */
  dropped: number;
}

describe('deploy/haproxy.cfg in front of three nodes', () => {
  let h: Harness;
  let balancer: Balancer;
  let base: string;
  const nodes: Node[] = [];

  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    for (const name of ['node_a', 'node_b', 'node_c']) {
      // Every answer computed: the test counts which node answers what.
      const node: Node = Object.assign(await startApiNode(h, name, { answerCacheChars: 0 }), {
        port: await freePort(),
        answered: 0,
        dropsPosts: false,
        dropped: 0,
      });
      node.app.addHook('onRequest', async (request) => {
        if (node.dropsPosts && request.method === 'POST') {
          node.dropped++;
          request.raw.socket.destroy();
        }
      });
      node.app.addHook('onResponse', async (request) => {
        if (request.url.startsWith('/api/v1/')) node.answered++;
      });
      await node.app.listen({ host: '127.0.0.1', port: node.port });
      nodes.push(node);
    }
    balancer = await startBalancer(nodes.map((n) => ({ name: n.name, port: n.port })));
    base = balancer.base;
    await balancerUp(balancer);
  });
  afterAll(async () => {
    await balancer?.stop();
    for (const node of nodes) await node.stop();
    if (h) await dropIdleSlots(h.pool);
    await h?.close();
  });

  const get = (token: string, route = '/api/v1/projects') =>
    fetch(`${base}${route}`, { headers: { authorization: `Bearer ${token}` } });
  const counts = () => nodes.map((n) => n.answered);
  const delta = (before: number[]) => counts().map((n, i) => n - before[i]!);

  it("keeps each token's requests on one node", async () => {
    for (const token of [TOKENS.owner, TOKENS.admin, TOKENS.manager, TOKENS.member]) {
      const before = counts();
      for (let i = 0; i < 6; i++) expect((await get(token)).status).toBe(200);
      const served = delta(before);
      expect(
        served.filter((n) => n > 0),
        `${token}: ${served.join(' ')}`,
      ).toHaveLength(1);
      expect(served.reduce((a, b) => a + b, 0)).toBe(6);
    }
  });

  it('answers a read from another node when its node refuses it with 503', async () => {
    const before = counts();
    expect((await get(TOKENS.owner)).status).toBe(200);
    const home = nodes[delta(before).findIndex((n) => n > 0)]!;
    // Its read model reloading: it answers reads 503 until HAProxy's checks take it out.
    home.status.reloading();
    const during = counts();
    for (let i = 0; i < 3; i++) expect((await get(TOKENS.owner)).status).toBe(200);
    const served = delta(during);
    // Asked first, refused, then answered by another node.
    expect(served[nodes.indexOf(home)]).toBe(3);
    expect(served.reduce((a, b) => a + b, 0)).toBe(6);
    home.status.committed(new Date(), 'everything');
  });

  it('sends a POST again on another node only when it carries an Idempotency-Key', async () => {
    const before = counts();
    expect((await get(TOKENS.owner)).status).toBe(200);
    const home = nodes[delta(before).findIndex((n) => n > 0)]!;
    // The node dies with the POST in hand: it may have committed it before dying.
    home.dropsPosts = true;
    const post = (name: string, key?: string) =>
      fetch(`${base}/api/v1/clients`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKENS.owner}`,
          'content-type': 'application/json',
          ...(key === undefined ? {} : { 'idempotency-key': key }),
        },
        body: JSON.stringify({ name }),
      });
    const without = counts();
    // Without a key: not sent again (the client is told, and may look before it retries).
    // HAProxy answers 502, or closes the client's connection when the node's was a reused one.
    const answer = await post('Balancer, not retried').then(
      (res) => res.status,
      () => 'closed',
    );
    expect([502, 'closed']).toContain(answer);
    expect(home.dropped).toBe(1);
    expect(delta(without).reduce((a, b) => a + b, 0)).toBe(0);
    // With a key: another node takes it, and the store's key makes a repeat harmless.
    const withKey = counts();
    const created = await post('Balancer, retried', randomUUID());
    expect(created.status).toBe(201);
    expect(home.dropped).toBe(2);
    expect(delta(withKey)[nodes.indexOf(home)]).toBe(0);
    expect(delta(withKey).reduce((a, b) => a + b, 0)).toBe(1);
    home.dropsPosts = false;
  });

  it('routes around a node that is gone, with nothing refused', async () => {
    const before = counts();
    expect((await get(TOKENS.admin)).status).toBe(200);
    const home = nodes[delta(before).findIndex((n) => n > 0)]!;
    home.app.server.closeAllConnections();
    await home.app.close();
    for (let i = 0; i < 5; i++) expect((await get(TOKENS.admin)).status).toBe(200);
    const health = await fetch(`${base}/healthz`);
    expect(((await health.json()) as { node: string }).node).not.toBe(home.name);
  });
});
