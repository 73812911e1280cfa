import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiNode, type ApiNode } from '../support/api-node.ts';
import { dropIdleSlots } from '../support/databases.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { freePort } from '../support/server-process.ts';
import { smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// deploy/haproxy.cfg through a real HAProxy (Debian's package; `.ci/run` installs it), in
// front of three API nodes on one store: a token's requests stay on one node, a node that
// goes away is routed around, and a read a node refuses with 503 is answered by another.
// `npm run test:deploy` runs it; `npm test` does not, so that it needs nothing installed.

const CONFIG = path.resolve(import.meta.dirname, '../../deploy/haproxy.cfg');

/** A node of the test, listening, with the requests it answered under /api/v1. */
interface Node extends ApiNode {
  port: number;
  answered: number;
}

describe('deploy/haproxy.cfg in front of three nodes', () => {
  let h: Harness;
  let dir: string;
  let haproxy: ChildProcess;
  let base: string;
  const nodes: Node[] = [];

  beforeAll(async () => {
    const version = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
    if (version.status !== 0)
      throw new Error('haproxy is not installed: apt-get install haproxy (.ci/run does)');
    h = await createHarness();
    await h.importObject(smallSnapshot());
    for (const name of ['node_a', 'node_b', 'node_c']) {
      // Every answer computed: the test counts which node answers what.
      const node: Node = Object.assign(await startApiNode(h, name, { answerCacheChars: 0 }), {
        port: await freePort(),
        answered: 0,
      });
      node.app.addHook('onResponse', async (request) => {
        if (request.url.startsWith('/api/v1/')) node.answered++;
      });
      await node.app.listen({ host: '127.0.0.1', port: node.port });
      nodes.push(node);
    }
    // The configuration as shipped, with this run's ports.
    dir = await mkdtemp(path.join(tmpdir(), 'll-haproxy-'));
    const listen = await freePort();
    const servers = nodes.map((n) => `    server ${n.name} 127.0.0.1:${n.port}`).join('\n');
    const shipped = await readFile(CONFIG, 'utf8');
    const config = shipped
      .replace(/^ {4}bind 127\.0\.0\.1:8080$/m, `    bind 127.0.0.1:${listen}`)
      .replace(/(^ {4}server .*\n?)+/m, `${servers}\n`);
    expect(config).not.toBe(shipped);
    const file = path.join(dir, 'haproxy.cfg');
    await writeFile(file, config);
    const check = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
    expect(check.status, check.stderr + check.stdout).toBe(0);
    haproxy = spawn('haproxy', ['-db', '-f', file], { stdio: 'ignore' });
    base = `http://127.0.0.1:${listen}`;
    // HAProxy answering, through a node.
    const deadline = Date.now() + 20_000;
    while (
      (await fetch(`${base}/healthz`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (Date.now() > deadline) throw new Error('HAProxy did not answer through a node');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(async () => {
    haproxy?.kill('SIGTERM');
    for (const node of nodes) await node.stop();
    if (h) await dropIdleSlots(h.pool);
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
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
