// Three API nodes behind HAProxy on one store (docs/scale-out.md): the demo workspace in an
// embedded PostgreSQL, three `npm run cli -- serve` processes (node_a, node_b, node_c), each
// with its own read model, and HAProxy running deploy/haproxy.cfg with this run's ports. The
// dashboard's reports and lists with writes are sent through the balancer at a constant rate
// (open loop) for 60 s; node_b is killed with SIGKILL at 20 s and a new node_d started at 40 s.
//
// Prints: requests answered per second per node and in all, in each third of the run; p50/p95
// per route; every request that failed, and whether it was in flight on the killed node;
// acknowledged writes missing from the store; reads that sent a write's X-Data-Position and
// did not show it; each node's lag (its /healthz every second); the new node's time from its
// spawn to its /healthz 200 and to its first request through the balancer. The fixed CPU loop
// before and after. On two cores the four processes share the CPU: the figures to read are
// the losses and the consistency, not the throughput.
//   npm run bench -- nodes [--rate R] [--seconds S]   (default 30 requests/s for 60 s)
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  balancerUp,
  killNode,
  nodeHealth,
  nodeJoined,
  startBalancer,
  startNodeProcess,
  stopNode,
  type NodeProcess,
} from '../test/support/node-cluster.ts';
import { freePort } from '../test/support/server-process.ts';
import { cpuLoopMs, demoStore, log, openLoopOptions, percentile } from './support.ts';

const { rate: RATE, runMs: RUN_MS } = openLoopOptions(30);
const KILL_AT = RUN_MS / 3;
const JOIN_AT = (RUN_MS * 2) / 3;
const DEMO = path.resolve(import.meta.dirname, '../fixtures/demo.json');

interface Demo {
  workspace: { id: string };
  members: { userId: string; role: string }[];
  clients: { id: string; name: string }[];
}
const demo = JSON.parse(readFileSync(DEMO, 'utf8')) as Demo;

type Route =
  | 'summary'
  | 'profitability month'
  | 'profitability quarter'
  | 'unpaid time'
  | 'projects'
  | 'invoices'
  | 'POST client (key)'
  | 'POST client (no key)'
  | 'PATCH client'
  | 'read at position';
interface Sent {
  route: Route;
  status: number;
  servedBy: string | null;
  /** ms since the load began. */
  due: number;
  started: number;
  ended: number;
  error?: string;
}

const { store, pool, tokens, close } = await demoStore('nodes', 20);
const nodes: NodeProcess[] = [];
let stopBalancer: (() => Promise<void>) | undefined;
try {
  for (const name of ['node_a', 'node_b', 'node_c'])
    nodes.push(await startNodeProcess(name, store.url));
  for (const node of nodes) await nodeJoined(node);
  const joinerPort = await freePort();
  const balancer = await startBalancer(
    [...nodes, { name: 'node_d', port: joinerPort }].map((n) => ({ name: n.name, port: n.port })),
    { servedBy: true },
  );
  stopBalancer = () => balancer.stop();
  await balancerUp(balancer);
  log(`three nodes and HAProxy up; ${RATE} requests/s for ${RUN_MS / 1000} s`);

  const cpuBefore = cpuLoopMs();
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const sent: Sent[] = [];
  const acknowledged: { id: string; name: string }[] = [];
  const stale: string[] = [];

  const send = async (
    route: Route,
    due: number,
    token: string,
    method: string,
    url: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const started = now();
    try {
      const res = await fetch(`${balancer.base}/api/v1${url}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...init.headers,
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const text = await res.text();
      const result: Sent = {
        route,
        status: res.status,
        servedBy: res.headers.get('x-served-by'),
        due,
        started,
        ended: now(),
      };
      sent.push(result);
      return { result, text, position: res.headers.get('x-data-position') };
    } catch (error) {
      const result: Sent = { route, status: 0, servedBy: null, due, started, ended: now() };
      result.error = String((error as Error).cause ?? error);
      sent.push(result);
      return { result, text: '', position: null };
    }
  };

  // Of every 10 requests: 6 of the dashboard's reads, 2 keyed POSTs (each read back through
  // the balancer with its position, by another token), 1 POST without a key, 1 PATCH.
  const reads: [Route, string][] = [
    ['summary', '/team-payouts/summary'],
    ['profitability month', '/team-payouts/profitability?from=2026-10-01&to=2026-10-31'],
    ['profitability quarter', '/team-payouts/profitability?from=2026-09-01&to=2026-11-30'],
    ['unpaid time', '/team-payouts/unpaid-time'],
    ['projects', '/projects'],
    ['invoices', '/invoices?status=SENT&sort=-total'],
  ];
  const writeClient = async (due: number, token: string, other: string, withKey: boolean) => {
    const name = `Nodes bench ${randomUUID()}, "q" \\ 🧾`;
    const { result, text, position } = await send(
      withKey ? 'POST client (key)' : 'POST client (no key)',
      due,
      token,
      'POST',
      '/clients',
      { body: { name }, headers: withKey ? { 'idempotency-key': randomUUID() } : {} },
    );
    if (result.status !== 201) return;
    const id = (JSON.parse(text) as { data: { id: string } }).data.id;
    acknowledged.push({ id, name });
    // Timed from the write's answer: what a client reading its write back waits.
    const read = await send(
      'read at position',
      now(),
      other,
      'GET',
      `/clients?search=${encodeURIComponent(name)}`,
      { headers: { 'x-data-position': position! } },
    );
    const shown =
      read.result.status === 200 ? (JSON.parse(read.text) as { data: { id: string }[] }).data : [];
    if (shown.length !== 1 || shown[0]!.id !== id)
      stale.push(`${read.result.status} from ${read.result.servedBy} for ${id} at ${position}`);
  };

  // Each node's health every second, and the new node's.
  const lag = new Map<string, number[]>();
  let joiner: NodeProcess | undefined;
  let joinerJoinedAt: number | undefined;
  let running = true;
  const watch = (async () => {
    while (running) {
      for (const node of joiner ? [...nodes, joiner] : nodes) {
        const health = await nodeHealth(node);
        if (health.status === 200) {
          const bytes = health.body.sync?.lagBytes ?? 0;
          lag.set(node.name, [...(lag.get(node.name) ?? []), bytes]);
          if (node === joiner && joinerJoinedAt === undefined) joinerJoinedAt = now();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();

  let killedAt = Number.NaN;
  let joinerSpawnedAt = Number.NaN;
  const events = (async () => {
    await new Promise((resolve) => setTimeout(resolve, KILL_AT));
    killedAt = now();
    await killNode(nodes.find((n) => n.name === 'node_b')!);
    log(`node_b killed at ${(killedAt / 1000).toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, JOIN_AT - now()));
    joinerSpawnedAt = now();
    joiner = await startNodeProcess('node_d', store.url, { port: joinerPort });
    log(`node_d started at ${(joinerSpawnedAt / 1000).toFixed(1)} s`);
  })();

  const pending: Promise<unknown>[] = [];
  const total = Math.floor((RATE * RUN_MS) / 1000);
  let random = 7;
  const next = () => (random = (random * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < total; i++) {
    const due = (i * 1000) / RATE;
    const wait = due - now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const token = tokens[Math.floor(next() * tokens.length)]!;
    const other = tokens[Math.floor(next() * tokens.length)]!;
    const slot = i % 10;
    if (slot < 6) {
      const [route, url] = reads[Math.floor(next() * reads.length)]!;
      pending.push(send(route, due, token, 'GET', url));
    } else if (slot < 8) pending.push(writeClient(due, token, other, true));
    else if (slot === 8) pending.push(writeClient(due, token, other, false));
    else
      pending.push(
        send('PATCH client', due, token, 'PATCH', `/clients/${demo.clients[0]!.id}`, {
          body: { name: demo.clients[0]!.name, notes: `nodes bench ${i}` },
        }),
      );
  }
  await Promise.all(pending);
  await events;
  running = false;
  await watch;
  const cpuAfter = cpuLoopMs();

  // The figures.
  const firstByJoiner = sent
    .filter((s) => s.servedBy === 'node_d')
    .reduce((min, s) => Math.min(min, s.ended), Infinity);
  const names = ['node_a', 'node_b', 'node_c', 'node_d'];
  const thirds = [0, 1, 2].map((k) => [(k * RUN_MS) / 3, ((k + 1) * RUN_MS) / 3] as const);
  console.log(
    `demo workspace, ${tokens.length} tokens; ${RATE} requests/s for ${RUN_MS / 1000} s through HAProxy; node_b killed at ${(killedAt / 1000).toFixed(1)} s, node_d started at ${(joinerSpawnedAt / 1000).toFixed(1)} s`,
  );
  console.log('answered per second (2xx), by node:');
  console.log(`  ${'seconds'.padEnd(10)}${names.map((n) => n.padStart(9)).join('')}      all`);
  for (const [from, to] of thirds) {
    const inThird = sent.filter((s) => s.ended >= from && s.ended < to && s.status < 300);
    const perSecond = (list: Sent[]) => ((list.length * 1000) / (to - from)).toFixed(1).padStart(9);
    console.log(
      `  ${`${(from / 1000).toFixed(0)}-${(to / 1000).toFixed(0)}`.padEnd(10)}${names.map((n) => perSecond(inThird.filter((s) => s.servedBy === n))).join('')}${perSecond(inThird)}`,
    );
  }
  console.log('ms from when each request was due, p50 / p95 (2xx):');
  const routes = [...new Set(sent.map((s) => s.route))];
  for (const route of routes) {
    const times = sent
      .filter((s) => s.route === route && s.status < 300)
      .map((s) => s.ended - s.due)
      .sort((a, b) => a - b);
    console.log(
      `  ${route.padEnd(24)}${String(times.length).padStart(6)}  ${percentile(times, 50).toFixed(1).padStart(8)} / ${percentile(times, 95).toFixed(1)}`,
    );
  }
  const failed = sent.filter((s) => s.status >= 300 || s.status === 0);
  const inFlight = (s: Sent) => s.started < killedAt && s.ended >= killedAt;
  console.log(
    `failed: ${failed.length} of ${sent.length} (${failed.filter(inFlight).length} in flight at the kill)`,
  );
  for (const f of failed)
    console.log(
      `  ${f.route}: ${f.status === 0 ? f.error : f.status} from ${f.servedBy ?? '-'}, sent at ${(f.started / 1000).toFixed(2)} s, answered ${(f.ended / 1000).toFixed(2)} s${inFlight(f) ? ' (in flight at the kill)' : ''}`,
    );
  const { rows } = await pool.query<{ id: string }>(
    'SELECT id FROM clients WHERE id = ANY($1::uuid[])',
    [acknowledged.map((a) => a.id)],
  );
  console.log(
    `acknowledged writes: ${acknowledged.length}; missing from the store: ${acknowledged.length - rows.length}`,
  );
  console.log(`reads at a write's position that did not show it: ${stale.length}`);
  for (const line of stale.slice(0, 10)) console.log(`  ${line}`);
  console.log(
    "lag of each node's read model while it answered /healthz 200, bytes, p50 / p95 / max:",
  );
  for (const name of names) {
    const seen = (lag.get(name) ?? []).sort((a, b) => a - b);
    if (seen.length > 0)
      console.log(
        `  ${name}: ${percentile(seen, 50)} / ${percentile(seen, 95)} / ${seen.at(-1)} (${seen.length} samples)`,
      );
  }
  console.log(
    `node_d: /healthz 200 ${joinerJoinedAt === undefined ? 'never' : `${((joinerJoinedAt - joinerSpawnedAt) / 1000).toFixed(1)} s`} after its spawn, first request through the balancer ${Number.isFinite(firstByJoiner) ? `${((firstByJoiner - joinerSpawnedAt) / 1000).toFixed(1)} s` : 'never'} after`,
  );
  console.log(`CPU loop: ${cpuBefore.toFixed(0)} ms before, ${cpuAfter.toFixed(0)} ms after`);
  if (joiner) nodes.push(joiner);
} finally {
  await stopBalancer?.();
  for (const node of nodes) await stopNode(node);
  await close();
}
