// Webhook delivery under a steady write load (docs/webhooks.md, "Figures"): the demo workspace
// in an embedded PostgreSQL, one `npm run cli -- serve` process (its sync, producer and sender),
// and writes sent to it at a constant rate (open loop): POST a client, then PATCH one, in turn.
// Three phases of the same load: with no endpoint; with two endpoints answering at once; with
// two endpoints, one answering at once and one after 2 s. The receivers run in this process.
//
// Prints, per phase: the writes' p50/p95/p99 and failures; the read model's lag (the node's
// /healthz every 250 ms: the age of its newest applied commit against the store's) p50/p99 and
// the largest. For the phases with endpoints, per endpoint: events received of those expected,
// the latency from each event's commit (its body's timestamp) to its first arrival at the
// receiver p50/p99 and the largest, repeats of a webhook-id, and how long the last took to
// arrive after the load ended. The fixed CPU loop before and after.
//   npm run bench -- webhooks [--rate R] [--seconds S]   (default 100 writes/s for 60 s)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  nodeJoined,
  startNodeProcess,
  stopNode,
  type NodeProcess,
} from '../test/support/node-cluster.ts';
import { cpuLoopMs, demoStore, log, openLoopOptions, percentile } from './support.ts';

const { rate: RATE, runMs: RUN_MS } = openLoopOptions(100);
const SLOW_MS = 2000;
/** How long the endpoints may take to receive the last events after the load ends. */
const DRAIN_MS = 120_000;

/** A receiver: each webhook-id's first arrival, ms after its commit. */
interface Receiver {
  url: string;
  latency: Map<string, number>;
  repeats: number;
  lastArrival: number;
  close(): void;
}

async function receiver(name: string, answerAfterMs: number): Promise<Receiver> {
  const latency = new Map<string, number>();
  const state = { repeats: 0, lastArrival: 0 };
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const arrived = Date.now();
      const id = request.headers['webhook-id'] as string;
      const { timestamp } = JSON.parse(body) as { timestamp: string };
      if (latency.has(id)) state.repeats++;
      else latency.set(id, arrived - Date.parse(timestamp));
      state.lastArrival = performance.now();
      setTimeout(() => response.writeHead(204).end(), answerAfterMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`,
    latency,
    get repeats() {
      return state.repeats;
    },
    get lastArrival() {
      return state.lastArrival;
    },
    close: () => server.close(),
  };
}

const demo = await demoStore('webhooks', 20);
const { tokens } = demo;
let node: NodeProcess | undefined;
const receivers: Receiver[] = [];
try {
  node = await startNodeProcess('node_a', demo.store.url, {
    env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  await nodeJoined(node);
  const base = `http://127.0.0.1:${node.port}`;
  const api = async (method: string, url: string, token: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, text: await res.text() };
  };

  const cpuBefore = cpuLoopMs();

  /** One phase: the load, with the node's lag sampled beside it. */
  const phase = async (label: string) => {
    const t0 = performance.now();
    const answered: number[] = [];
    let failed = 0;
    const lag: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        try {
          const res = await fetch(`${base}/healthz`);
          const body = (await res.json()) as { sync?: { lagSeconds?: number } };
          lag.push((body.sync?.lagSeconds ?? 0) * 1000);
        } catch {
          lag.push(Number.NaN);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    const created: string[] = [];
    const pending: Promise<void>[] = [];
    const total = Math.floor((RATE * RUN_MS) / 1000);
    for (let i = 0; i < total; i++) {
      const due = (i * 1000) / RATE;
      const wait = due - (performance.now() - t0);
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const token = tokens[i % tokens.length]!;
      const started = performance.now();
      const patch = i % 2 === 1 && created.length > 0;
      const write = patch
        ? api('PATCH', `/clients/${created[created.length - 1]!}`, token, {
            name: `Webhooks bench ${label} ${i - 1}, "q" \\ 🧾`,
            notes: `${label} ${i}, "q" \\ 🧾`,
          })
        : api('POST', '/clients', token, { name: `Webhooks bench ${label} ${i}, "q" \\ 🧾` });
      pending.push(
        write.then(
          ({ status, text }) => {
            answered.push(performance.now() - started);
            if (status === 201)
              created.push((JSON.parse(text) as { data: { id: string } }).data.id);
            else if (status !== 200) {
              failed++;
              if (failed === 1) log(`${label}: a write answered ${status} ${text.slice(0, 300)}`);
            }
          },
          () => {
            failed++;
          },
        ),
      );
    }
    await Promise.all(pending);
    const ended = performance.now();
    sampling = false;
    await sampler;
    answered.sort((a, b) => a - b);
    const lags = lag.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
    const row = {
      phase: label,
      writes: total,
      failed,
      'write p50 ms': +percentile(answered, 50).toFixed(1),
      'write p95 ms': +percentile(answered, 95).toFixed(1),
      'write p99 ms': +percentile(answered, 99).toFixed(1),
      'lag p50 ms': +percentile(lags, 50).toFixed(0),
      'lag p99 ms': +percentile(lags, 99).toFixed(0),
      'lag max ms': +(lags.at(-1) ?? Number.NaN).toFixed(0),
    };
    log(`${label}: ${JSON.stringify(row)}`);
    return { row, ended, total, acknowledged: answered.length - failed };
  };

  /** A phase with endpoints, then until each has received its events (or DRAIN_MS passed). */
  const withReceivers = async (label: string, rs: Receiver[]) => {
    const before = rs.map((r) => r.latency.size);
    const run = await phase(label);
    const deadline = performance.now() + DRAIN_MS;
    while (
      rs.some((r, i) => r.latency.size - before[i]! < run.acknowledged) &&
      performance.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 200));
    const rows = rs.map((r, i) => {
      const latency = [...r.latency.values()].slice(before[i]).sort((a, b) => a - b);
      return {
        phase: label,
        endpoint: r.url.endsWith('/slow') ? `answers in ${SLOW_MS / 1000} s` : 'answers at once',
        expected: run.acknowledged,
        received: latency.length,
        repeats: r.repeats,
        'latency p50 ms': +percentile(latency, 50).toFixed(0),
        'latency p99 ms': +percentile(latency, 99).toFixed(0),
        'latency max ms': +(latency.at(-1) ?? Number.NaN).toFixed(0),
        'last after load s': +((r.lastArrival - run.ended) / 1000).toFixed(1),
      };
    });
    return { row: run.row, rows };
  };
  const addEndpoint = async (r: Receiver) => {
    const made = await api('POST', '/webhooks', tokens[0]!, { url: r.url });
    if (made.status !== 201) throw new Error(`POST /webhooks: ${made.status} ${made.text}`);
    return (JSON.parse(made.text) as { data: { id: string } }).data.id;
  };

  const without = await phase('without endpoints');
  // Two endpoints answering at once; then one of them disabled and one answering in 2 s
  // added: what a slow endpoint changes, beside what sending itself costs.
  const [fast, fast2, slow] = [
    await receiver('fast', 0),
    await receiver('fast2', 0),
    await receiver('slow', SLOW_MS),
  ];
  receivers.push(fast, fast2, slow);
  await addEndpoint(fast);
  const second = await addEndpoint(fast2);
  const bothFast = await withReceivers('two answering at once', [fast, fast2]);
  const disabled = await api('PATCH', `/webhooks/${second}`, tokens[0]!, { enabled: false });
  if (disabled.status !== 200) throw new Error(`PATCH /webhooks: ${disabled.status}`);
  await addEndpoint(slow);
  const oneSlow = await withReceivers('one answering in 2 s', [fast, slow]);
  const cpuAfter = cpuLoopMs();

  console.log(`\nwebhooks: ${RATE} writes/s for ${RUN_MS / 1000} s, one node`);
  console.table([without.row, bothFast.row, oneSlow.row]);
  console.table([...bothFast.rows, ...oneSlow.rows]);
  console.log(`fixed CPU loop: ${cpuBefore.toFixed(0)} ms before, ${cpuAfter.toFixed(0)} ms after`);
} finally {
  for (const r of receivers) r.close();
  if (node) await stopNode(node);
  await demo.close();
}
