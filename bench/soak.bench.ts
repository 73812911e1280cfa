// A busy server (issue 38, point 7): the demo workspace `npm start` loads, served by a server
// process of its own listening on a port, under a mix of lists, record GETs, reports and writes
// sent at a constant arrival rate over keep-alive HTTP. Open loop: request i is due at
// start + i / rate whether or not the ones before it have answered, and its time runs from
// when it was due, so a slow answer cannot hide the requests queued behind it.
//
// Prints, per minute and for the whole run: requests/s answered, p50/p99 per route kind
// (lists, record GETs, reports, writes) and the server's RSS (from /proc), heap and DuckDB
// memory (its /metrics), each the median of the minute's samples taken every 5 s; the reads
// that waited before they ran, by reason (its data position, a sync batch, its turn). `--sweep` runs one step per rate instead and names the highest rate
// held with read p99 < 250 ms.
// Baseline, same run: the fixed CPU loop before and after (the machine's speed at the moment).
//   npm run bench -- soak [--rate R] [--minutes M] [--sweep R1,R2,...] [--step-seconds S]
//                         [--users U] [--sockets N] [--node-flags="..."] [--server-log FILE]
//                         [--kinds list,record,report,write] [--preload LIBRARY]
//   (default 50 requests/s for 10 minutes; a sweep's steps 60 s each; 20 users, each its own
//   token; `--node-flags=` adds flags to the server's node, e.g. "--cpu-prof
//   --cpu-prof-dir=/tmp/prof", "--heapsnapshot-signal=SIGUSR2" or "--trace-gc"; the server's
//   stdout goes to `--server-log`, where --trace-gc writes; `--preload` runs the server with
//   LD_PRELOAD=LIBRARY, e.g. /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 for jemalloc's malloc:
//   docs/performance.md, "Memory")
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuLoopMs, demoStore, log, percentile } from './support.ts';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '50' },
    minutes: { type: 'string', default: '10' },
    sweep: { type: 'string' },
    'step-seconds': { type: 'string', default: '60' },
    users: { type: 'string', default: '20' },
    sockets: { type: 'string', default: '64' },
    'node-flags': { type: 'string', default: '' },
    'server-log': { type: 'string' },
    kinds: { type: 'string', default: 'list,record,report,write' },
    preload: { type: 'string' },
  },
});
const READ_P99_HELD_MS = 250;
const ROOT = path.resolve(import.meta.dirname, '..');
const DEMO = path.join(ROOT, 'fixtures/demo.json');

type Kind = 'list' | 'record' | 'report' | 'write';
const KINDS: Kind[] = ['list', 'record', 'report', 'write'];
interface Call {
  kind: Kind;
  method: 'GET' | 'PATCH' | 'POST';
  url: string;
  body?: object;
  idempotencyKey?: string;
}
interface Result {
  kind: Kind;
  /** From when it was due to its last byte (ms). */
  ms: number;
  /** When it answered (performance.now()). */
  at: number;
  ok: boolean;
}

interface Demo {
  workspace: { id: string };
  members: { userId: string; role: string }[];
  clients: { id: string; name: string }[];
  projects: { id: string; clientId: string | null }[];
  invoices: { id: string }[];
  bills: { id: string }[];
  payments: { id: string }[];
  payees: { id: string }[];
  timeEntries: {
    id: string;
    userId: string;
    entryDate: string;
    durationSeconds: number;
    invoiceId: string | null;
    isRunning: boolean;
  }[];
}
const demo = JSON.parse(readFileSync(DEMO, 'utf8')) as Demo;

// The store: the demo imported into an empty one, as `npm start` does, and one token per user
// of the load (Owners and Admins, who may call every route of the mix). The server shares this
// process's PostgreSQL.
const { dataDir, tokens, close } = await demoStore('soak', Number(args.users));
let server: ChildProcess | undefined;
try {
  const { url, child } = await startServer(
    dataDir,
    args['node-flags'],
    args['server-log'],
    args.preload,
  );
  server = child;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number(args.sockets) });
  const send = (call: Call, token: string) => request(agent, url, call, token);
  const calls = await mixOfCalls(send, tokens[0]!);
  // Every call of the mix once, so nothing is measured cold (each must answer 2xx).
  for (const call of [...calls.list, ...calls.record, ...calls.report, ...calls.write]) {
    const res = await send(call(), tokens[0]!);
    if (res.status >= 300) throw new Error(`${res.status} ${res.body.slice(0, 300)}`);
  }

  const cpuBefore = cpuLoopMs();
  const rssAtStart = await serverMemory(url, child.pid!);
  log(
    `server pid ${child.pid}: RSS ${mb(rssAtStart.rss)} MB, heap ${mb(rssAtStart.heap)}, DuckDB ${mb(rssAtStart.duckdb)}; malloc: ${args.preload ?? "the C library's"}`,
  );
  if (args.sweep !== undefined) {
    const rates = args.sweep.split(',').map(Number);
    const stepMs = Number(args['step-seconds']) * 1000;
    const steps: {
      rate: number;
      results: Result[];
      ms: number;
      costs: [Map<string, number>, Map<string, number>];
      server: string;
    }[] = [];
    for (const rate of rates) {
      log(`sweep: ${rate} requests/s for ${stepMs / 1000} s`);
      const costsBefore = await batchCosts(url);
      const cpu = (await serverMemory(url, child.pid!)).cpuSeconds;
      const results = await openLoop(rate, stepMs, calls, tokens, send);
      const after = await serverMemory(url, child.pid!);
      steps.push({
        rate,
        ms: stepMs,
        results,
        costs: [costsBefore, await batchCosts(url)],
        server: `${((((after.cpuSeconds - cpu) * 1000) / stepMs) * 100).toFixed(0).padStart(4)}%  ${mb(after.rss)} / ${mb(after.heap)} / ${mb(after.duckdb)}`,
      });
    }
    const cpuAfter = cpuLoopMs();
    console.log(
      `demo workspace, ${tokens.length} users; rate sweep, ${stepMs / 1000} s per step; ms from when each request was due`,
    );
    printHeader('offered req/s');
    let held: number | undefined;
    for (const step of steps) {
      const readP99 = printRow(String(step.rate), step.results, step.ms, step.server);
      if (readP99 < READ_P99_HELD_MS && (held === undefined || step.rate > held)) held = step.rate;
    }
    for (const step of steps) {
      process.stdout.write(`${step.rate} requests/s: `);
      printBatchCosts(...step.costs, step.ms);
    }
    console.log(
      `highest rate held with read p99 < ${READ_P99_HELD_MS} ms: ${held === undefined ? 'none of the rates sent' : `${held} requests/s`}`,
    );
    printCpu(cpuBefore, cpuAfter);
  } else {
    const rate = Number(args.rate);
    const minutes = Number(args.minutes);
    log(`soak: ${rate} requests/s for ${minutes} min`);
    // The server's memory every 5 s: its RSS swings by 30-40 MB within seconds (what DuckDB's
    // statements allocate and free), so a minute's figure is the median of its 12 samples.
    const samples: (Awaited<ReturnType<typeof serverMemory>> & { at: number })[] = [];
    const costsBefore = await batchCosts(url);
    const atStart = await serverMemory(url, child.pid!);
    const started = performance.now();
    const sample = () =>
      void serverMemory(url, child.pid!).then((m) =>
        samples.push({ ...m, at: performance.now() - started }),
      );
    const sampler = setInterval(sample, 5_000);
    const results = await openLoop(rate, minutes * 60_000, calls, tokens, send);
    clearInterval(sampler);
    const costsAfter = await batchCosts(url);
    const cpuAfter = cpuLoopMs();
    console.log(
      `demo workspace, ${tokens.length} users; ${rate} requests/s for ${minutes} min; ms from when each request was due; memory: median of the minute's samples every 5 s`,
    );
    printHeader('minute');
    const minuteMemory: { rss: number; heap: number; duckdb: number }[] = [];
    let serverCpu = { seconds: atStart.cpuSeconds, at: 0 };
    for (let m = 0; m < minutes; m++) {
      const inMinute = results.filter(
        (r) => r.at >= started + m * 60_000 && r.at < started + (m + 1) * 60_000,
      );
      const taken = samples.filter((x) => x.at >= m * 60_000 && x.at < (m + 1) * 60_000);
      const median = (figure: 'rss' | 'heap' | 'duckdb') =>
        percentile(
          taken.map((x) => x[figure]).sort((a, b) => a - b),
          50,
        );
      const lastTaken = taken.at(-1);
      const cpu = lastTaken && { seconds: lastTaken.cpuSeconds, at: lastTaken.at };
      const memory =
        cpu === undefined
          ? undefined
          : { rss: median('rss'), heap: median('heap'), duckdb: median('duckdb') };
      if (memory) minuteMemory.push(memory);
      printRow(
        String(m + 1),
        inMinute,
        60_000,
        memory && cpu
          ? `${((((cpu.seconds - serverCpu.seconds) * 1000) / (cpu.at - serverCpu.at)) * 100).toFixed(0).padStart(4)}%  ${mb(memory.rss)} / ${mb(memory.heap)} / ${mb(memory.duckdb)}`
          : '',
      );
      if (cpu) serverCpu = cpu;
    }
    const readP99 = printRow('all', results, minutes * 60_000);
    const first = minuteMemory[0];
    const last = minuteMemory.at(-1);
    if (first && last) {
      const growth = (last.rss - first.rss) / first.rss;
      console.log(
        `RSS in minute 1: ${mb(first.rss)} MB, in the last: ${mb(last.rss)} MB (${(growth * 100).toFixed(1)}%; goal within 10%: ${Math.abs(growth) <= 0.1 ? 'met' : 'NOT met'})`,
      );
    }
    printBatchCosts(costsBefore, costsAfter, minutes * 60_000);
    console.log(
      `read p99 ${readP99.toFixed(1)} ms (goal < 100: ${readP99 < 100 ? 'met' : 'NOT met'})`,
    );
    printCpu(cpuBefore, cpuAfter);
  }
  agent.destroy();
} finally {
  if (server) await stopServer(server);
  await close();
}

/** Sends the mix at `rate` a second for `ms`; resolves when the last has answered. */
async function openLoop(
  rate: number,
  ms: number,
  calls: Record<Kind, (() => Call)[]>,
  tokens: string[],
  send: (call: Call, token: string) => Promise<{ status: number; body: string }>,
): Promise<Result[]> {
  // Of every 20 requests: 7 lists, 5 record GETs, 5 reports, 3 writes.
  // `--kinds` keeps some of them (to tell which part of the load a cost follows), at the same
  // total rate.
  const kept = new Set(args.kinds.split(','));
  const plan: Kind[] = [
    ...Array<Kind>(7).fill('list'),
    ...Array<Kind>(5).fill('record'),
    ...Array<Kind>(5).fill('report'),
    ...Array<Kind>(3).fill('write'),
  ].filter((kind) => kept.has(kind));
  if (plan.length === 0) throw new Error(`--kinds names none of ${KINDS.join(', ')}`);
  const results: Result[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.floor((rate * ms) / 1000);
  let random = 1;
  const next = () => (random = (random * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const kind = plan[i % plan.length]!;
    const choices = calls[kind];
    const call = choices[Math.floor(next() * choices.length)]!();
    const token = tokens[Math.floor(next() * tokens.length)]!;
    pending.push(
      send(call, token).then(
        (res) => {
          const at = performance.now();
          results.push({ kind, ms: at - due, at, ok: res.status < 300 });
          if (res.status >= 300)
            log(`${call.method} ${call.url}: ${res.status} ${res.body.slice(0, 200)}`);
        },
        (error: unknown) => {
          const at = performance.now();
          results.push({ kind, ms: at - due, at, ok: false });
          log(`${call.method} ${call.url}: ${String(error)}`);
        },
      ),
    );
  }
  await Promise.all(pending);
  return results;
}

/**
 * The calls of the mix, by kind, drawn from the demo workspace's ids. Writes do not pile up
 * rows: PATCHes of time entries (a minute more, then back) and clients (their notes), and
 * POST /tasks with one idempotency key per (token, slot) of a few, replayed after its first use.
 */
async function mixOfCalls(
  send: (call: Call, token: string) => Promise<{ status: number; body: string }>,
  token: string,
): Promise<Record<Kind, (() => Call)[]>> {
  const clientId = demo.clients[0]!.id;
  const projectId = demo.projects.find((p) => p.clientId !== null)!.id;
  const userId = demo.members.find((m) => m.role === 'MEMBER')!.userId;
  const get = (kind: Kind, url: string) => () => ({ kind, method: 'GET' as const, url });
  // Entries whose duration the API lets change (one on an invoice or an approved bill is 409).
  const entries: Demo['timeEntries'] = [];
  for (const e of demo.timeEntries.filter((t) => !t.isRunning && t.invoiceId === null)) {
    const res = await send(
      {
        kind: 'write',
        method: 'PATCH',
        url: `/time-entries/${e.id}`,
        body: { durationSeconds: e.durationSeconds },
      },
      token,
    );
    if (res.status === 200) entries.push(e);
    if (entries.length === 10) break;
  }
  if (entries.length === 0) throw new Error('no time entry of the demo takes a PATCH');
  let n = 0;
  const keys = Array.from({ length: 8 }, () => randomUUID());
  return {
    list: [
      get('list', '/clients'),
      get('list', '/clients?search=glob'),
      get('list', '/projects'),
      get('list', '/projects?status=ACTIVE&sort=name'),
      get('list', '/invoices'),
      get('list', '/invoices?status=SENT&sort=-total'),
      get('list', '/team-payouts/bills'),
      get('list', '/team-payouts/payments'),
      get('list', '/team-payouts/payees'),
    ],
    record: [
      ...demo.invoices.map((r) => get('record', `/invoices/${r.id}`)),
      ...demo.bills.map((r) => get('record', `/team-payouts/bills/${r.id}`)),
      ...demo.payments.map((r) => get('record', `/team-payouts/payments/${r.id}`)),
      ...demo.payees.map((r) => get('record', `/team-payouts/payees/${r.id}`)),
    ],
    report: [
      get('report', '/team-payouts/summary'),
      get('report', '/team-payouts/unpaid-time'),
      get('report', '/team-payouts/unpaid-time?scope=all'),
      get('report', '/team-payouts/profitability?from=2026-10-01&to=2026-10-31'),
      get('report', '/team-payouts/profitability?from=2026-09-01&to=2026-11-30'),
      get('report', `/team-payouts/profitability?from=2026-09-01&to=2026-11-30&userId=${userId}`),
    ],
    write: [
      () => {
        const e = entries[n % entries.length]!;
        return {
          kind: 'write',
          method: 'PATCH',
          url: `/time-entries/${e.id}`,
          body: { durationSeconds: e.durationSeconds + (n++ % 2 === 0 ? 60 : 0) },
        };
      },
      () => ({
        kind: 'write',
        method: 'PATCH',
        url: `/clients/${clientId}`,
        body: { name: demo.clients[0]!.name, notes: `soak ${n++ % 2}` },
      }),
      () => {
        const slot = n++ % keys.length;
        return {
          kind: 'write',
          method: 'POST',
          url: '/tasks',
          body: { projectId, name: `Soak task ${slot}` },
          idempotencyKey: keys[slot]!,
        };
      },
    ],
  };
}

/** One request over the keep-alive agent; resolves with its status and body once read. */
function request(
  agent: http.Agent,
  base: string,
  call: Call,
  token: string,
): Promise<{ status: number; body: string }> {
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/api/v1${call.url}`,
      {
        agent,
        method: call.method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          // A key is its token's: the same slot under another token is another write.
          ...(call.idempotencyKey === undefined
            ? {}
            : { 'idempotency-key': `${call.idempotencyKey}-${token.slice(8, 20)}` }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Spawns the server as `npm start` runs it (its node flags, src/main.ts) on a free port. */
async function startServer(
  dir: string,
  extraFlags: string,
  serverLog: string | undefined,
  preload: string | undefined,
): Promise<{ url: string; child: ChildProcess }> {
  const packageJson = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const startFlags = packageJson.scripts.start.split(' ').filter((w) => w.startsWith('--'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...startFlags.filter((f) => f !== '--import'),
      ...extraFlags.split(' ').filter(Boolean),
      '--import',
      'tsx',
      path.join(ROOT, 'src/main.ts'),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: dir,
        HOST: '127.0.0.1',
        PORT: String(port),
        TOKEN_ENV: 'test',
        LOG_LEVEL: 'warn',
        // The load is many users' worth of requests; the limit per token is not the question.
        RATE_LIMIT_REQUESTS: '1000000000',
        ...(preload === undefined ? {} : { LD_PRELOAD: preload }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('Press Ctrl+C')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before serving`)));
  });
  if (serverLog === undefined) child.stdout.resume();
  else child.stdout.pipe(createWriteStream(serverLog));
  return { url, child };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The sync's batches so far: how many, and their statements and seconds by share. */
async function batchCosts(base: string): Promise<Map<string, number>> {
  const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
  const figures = new Map<string, number>();
  for (const [, name, share, value] of metrics.matchAll(
    /^ledgerline_sync_(batches_applied_total|batch_statements_total|batch_seconds_total)(?:\{share="([^"]+)"\})? (\S+)$/gm,
  ))
    figures.set(`${name}${share === undefined ? '' : ` ${share}`}`, Number(value));
  // Reads' waits before they ran, by reason: how many, their seconds, how many past 25 ms.
  for (const [, part, labels, value] of metrics.matchAll(
    /^ledgerline_read_wait_seconds_(sum|count|bucket)\{([^}]*)\} (\S+)$/gm,
  )) {
    const reason = /reason="([^"]+)"/.exec(labels!)?.[1];
    const le = /le="([^"]+)"/.exec(labels!)?.[1];
    if (part !== 'bucket') figures.set(`wait_${part} ${reason}`, Number(value));
    else if (le === '0.025') figures.set(`wait_within25 ${reason}`, Number(value));
  }
  return figures;
}

/** What the sync's batches cost between two batchCosts: per batch, by share. */
function printBatchCosts(before: Map<string, number>, after: Map<string, number>, ms: number) {
  const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  const batches = delta('batches_applied_total');
  const shares = [...after.keys()]
    .filter((k) => k.startsWith('batch_seconds_total '))
    .map((k) => k.slice('batch_seconds_total '.length));
  console.log(
    `sync: ${batches} batches (${((batches * 1000) / ms).toFixed(1)}/s); per batch, ms (statements): ${shares
      .map(
        (share) =>
          `${share} ${((delta(`batch_seconds_total ${share}`) * 1000) / batches).toFixed(1)} (${(delta(`batch_statements_total ${share}`) / batches).toFixed(1)})`,
      )
      .join(', ')}`,
  );
  const waits = ['position', 'batch', 'turn'].map((reason) => {
    const count = delta(`wait_count ${reason}`);
    const seconds = delta(`wait_sum ${reason}`);
    const long = count - delta(`wait_within25 ${reason}`);
    return `${reason} ${count} (${count === 0 ? '-' : ((seconds * 1000) / count).toFixed(1)} ms mean, ${long} past 25 ms)`;
  });
  console.log(`reads that waited before they ran, by reason: ${waits.join(', ')}`);
}

/**
 * The server's RSS (from /proc), V8 heap and DuckDB memory (its /metrics), in bytes, and the CPU
 * time it has used so far, all its threads, in seconds.
 */
async function serverMemory(
  base: string,
  pid: number,
): Promise<{ rss: number; heap: number; duckdb: number; cpuSeconds: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  // utime and stime, the 14th and 15th fields, in clock ticks (100 a second on Linux); the
  // command name (2nd) is in parentheses and may hold spaces.
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  const cpuSeconds = (Number(stat[11]) + Number(stat[12])) / 100;
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
  const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
  const figure = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
  return {
    rss,
    cpuSeconds,
    heap: figure('nodejs_heap_size_used_bytes'),
    duckdb: [...metrics.matchAll(/^ledgerline_duckdb_memory_bytes\{[^}]*\} (\S+)$/gm)].reduce(
      (sum, [, value]) => sum + Number(value),
      0,
    ),
  };
}

function mb(bytes: number): string {
  return Number.isNaN(bytes) ? '-' : (bytes / 2 ** 20).toFixed(0);
}

function printHeader(first: string): void {
  console.log(
    [
      first.padEnd(13),
      'answered/s'.padStart(10),
      ...KINDS.map((k) => `${k} p50 / p99`.padStart(20)),
      'read p99'.padStart(9),
      'errors'.padStart(7),
      '  server CPU, RSS / heap / DuckDB MB',
    ].join(' '),
  );
}

/** One row of figures; returns the read p99 (every GET of the row). */
function printRow(label: string, results: Result[], ms: number, memory = ''): number {
  const p = (rs: Result[], q: number) =>
    percentile(
      rs.map((r) => r.ms).sort((a, b) => a - b),
      q,
    );
  const reads = results.filter((r) => r.kind !== 'write');
  const readP99 = p(reads, 99);
  console.log(
    [
      label.padEnd(13),
      ((results.length * 1000) / ms).toFixed(1).padStart(10),
      ...KINDS.map((k) => {
        const rs = results.filter((r) => r.kind === k);
        return `${p(rs, 50).toFixed(1)} / ${p(rs, 99).toFixed(1)}`.padStart(20);
      }),
      readP99.toFixed(1).padStart(9),
      String(results.filter((r) => !r.ok).length).padStart(7),
      `  ${memory}`,
    ].join(' '),
  );
  return readP99;
}

function printCpu(before: number, after: number): void {
  console.log(
    `fixed CPU loop: ${before.toFixed(0)} ms before, ${after.toFixed(0)} ms after (quiet machine: about 350-850)`,
  );
}
