// How soon does the server answer again after it and its embedded PostgreSQL were killed with
// SIGKILL (issue 38)? The server runs as `npm start` runs it (package.json's start script: its
// node flags and src/main.ts) on a data dir. Each run kills the server, its postmaster and the
// postmaster's processes with SIGKILL once the server follows the store, starts it again and
// times from the spawn to the first 200 of an authenticated GET /api/v1/team-payouts/summary
// (asked every 20 ms). The server's own start-up line (its phases, in seconds since its process
// began: src/cli/start-up-times.ts) is printed for each run.
// Baseline, same run: the fixed CPU loop before and after.
// With --writes W, each run first makes W writes (PATCH /time-entries/{id}) and waits until the
// read model shows them: the WAL since the last checkpoints that a start after a crash replays.
// With --cpus C (a CPU list, `0`), the server and its processes run on those CPUs only
// (taskset): a start that shares the machine, reproducibly. Each run also prints the CPU time
// the server and its processes used until the first 200, which whatever else runs does not
// change.
//   npm run bench -- restart [--time-entries N] [--runs R] [--writes W] [--cpus C]
//   Without N: the demo workspace (fixtures/demo.json), imported by a first start into a fresh
//   data dir (BENCH_DIR, default <tmp>/ll-bench-restart-demo, removed at the end). With N: the
//   generated workspace of N entries kept under BENCH_DIR as the served benchmarks keep it
//   (support.ts: the store under data/, read-model.duckdb beside it; default
//   <tmp>/ll-bench-10m for 10,000,000); the server's DATA_DIR is BENCH_DIR, where links pg and
//   cluster.json to data/ stand while the benchmark runs. R defaults to 5, W to 0.
import { readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createKysely } from '../src/store/database.ts';
import { createToken } from '../src/tokens/token.repository.ts';
import {
  cpuSeconds,
  freePort,
  killWithStore,
  printedLine,
  said,
  startServerProcess,
  stopServerProcess,
  type ServerProcess,
} from '../test/support/server-process.ts';
import { benchStore, cpuLoopMs, log, percentile } from './support.ts';

const { values: args } = parseArgs({
  options: {
    'time-entries': { type: 'string' },
    runs: { type: 'string', default: '5' },
    writes: { type: 'string', default: '0' },
    cpus: { type: 'string' },
  },
});
const timeEntries = args['time-entries'] === undefined ? undefined : Number(args['time-entries']);
const runs = Number(args.runs);
const writes = Number(args.writes);
const onCpus = args.cpus;
const REPORT = '/api/v1/team-payouts/summary';
const DEMO = path.resolve(import.meta.dirname, '../fixtures/demo.json');

/** Ms from the server's spawn to the first 200 of the report; throws past `timeoutMs`. */
async function firstAnswer(server: ServerProcess, port: number, token: string, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}${REPORT}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(30_000),
    }).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status;
      },
      () => 0,
    );
    if (status === 200) return performance.now() - server.spawnedAt;
    if (server.child.exitCode !== null || performance.now() > deadline) {
      throw new Error(`no 200 from ${REPORT} (last ${status}); the server said:\n${said(server)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const dir =
  process.env.BENCH_DIR ??
  path.join(
    tmpdir(),
    timeEntries === undefined
      ? 'll-bench-restart-demo'
      : timeEntries === 10_000_000
        ? 'll-bench-10m'
        : `ll-bench-${timeEntries}`,
  );
const links = [path.join(dir, 'pg'), path.join(dir, 'cluster.json')];
let token: string | undefined;
/** Time entries the writes before a kill change (one on a locked invoice or bill answers 409). */
let entries: string[];
if (timeEntries === undefined) {
  await rm(dir, { recursive: true, force: true });
  const demo = JSON.parse(await readFile(DEMO, 'utf8')) as {
    timeEntries: { id: string; invoiceId?: string | null; deletedAt?: string | null }[];
  };
  entries = demo.timeEntries.filter((e) => !e.invoiceId && !e.deletedAt).map((e) => e.id);
} else {
  // The kept workspace, and an Owner token of it; its read model's slot stays.
  const bench = await benchStore(dir, timeEntries);
  const { rows } = await bench.pool.query<{ workspace_id: string; user_id: string }>(
    `SELECT workspace_id, user_id FROM members WHERE role = 'OWNER' AND deleted_at IS NULL LIMIT 1`,
  );
  const owner = rows[0]!;
  token = (
    await createToken(createKysely(bench.pool), {
      workspaceId: owner.workspace_id,
      userId: owner.user_id,
      scopes: ['read', 'write'],
      env: 'test',
    })
  ).token;
  entries = (
    await bench.pool.query<{ id: string }>(
      `SELECT id FROM time_entries WHERE workspace_id = $1 AND invoice_id IS NULL AND deleted_at IS NULL ORDER BY id LIMIT 1000`,
      [owner.workspace_id],
    )
  ).rows.map((r) => r.id);
  const slots = await bench.pool.query<{ slot_name: string }>(
    'SELECT slot_name FROM pg_replication_slots',
  );
  await bench.close(slots.rows.map((s) => s.slot_name));
  // npm start keeps its cluster in DATA_DIR/pg and its read model in DATA_DIR; the kept
  // workspace has its cluster under data/.
  await rm(links[0]!, { force: true });
  await rm(links[1]!, { force: true });
  await symlink(path.join('data', 'pg'), links[0]!);
  await symlink(path.join('data', 'cluster.json'), links[1]!);
}

/**
 * `count` writes through the API (PATCH /time-entries/{id}, a new note each, four at a time),
 * then a read that waits until the read model shows the last (X-Data-Position): what a server
 * has done since its last checkpoints when it is killed. The DuckDB WAL's size then, in bytes.
 */
async function writeThenRead(port: number, token: string, count: number): Promise<number> {
  const base = `http://127.0.0.1:${port}/api/v1`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let next = 0;
  let position = '0/0';
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < count) {
        const n = next++;
        const res = await fetch(`${base}/time-entries/${entries[n % entries.length]!}`, {
          method: 'PATCH',
          headers,
          body: JSON.stringify({ note: `restart bench ${n}` }),
        });
        await res.arrayBuffer();
        if (res.status === 200) position = res.headers.get('x-data-position') ?? position;
        else if (res.status !== 409) throw new Error(`PATCH answered ${res.status}`);
      }
    }),
  );
  // A read waits at most 10 s for its position (503 then): asked again until the batches are in.
  for (let status = 503; status === 503;) {
    const read = await fetch(`${base}${REPORT.replace('/api/v1', '')}`, {
      headers: { ...headers, 'x-data-position': position },
    });
    await read.arrayBuffer();
    status = read.status;
    if (status !== 200 && status !== 503) throw new Error(`a read after the writes: ${status}`);
  }
  return stat(path.join(dir, 'read-model.duckdb.wal')).then(
    (s) => s.size,
    () => 0,
  );
}

const port = await freePort();
const clusterDir = path.join(dir, 'pg');
// Writes and reads as fast as the benchmark sends them; the rate limit is not what it measures.
const env = { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' };
let server = startServerProcess(dir, port, env, onCpus);
try {
  log(
    `first start on ${dir}${timeEntries === undefined ? ' (imports the demo workspace)' : ''} ...`,
  );
  await printedLine(server, /^Press Ctrl\+C/, 30 * 60_000);
  token ??= /OWNER\s+(tt_test_\S+)/.exec(
    await printedLine(server, /^\s+OWNER\s+tt_test_/, 1000),
  )?.[1];
  if (token === undefined) throw new Error('no Owner token printed');
  await firstAnswer(server, port, token, 60_000);

  const cpuBefore = cpuLoopMs();
  const times: number[] = [];
  const cpus: number[] = [];
  for (let run = 1; run <= runs; run++) {
    // A server that has run a moment: the sync follows the store, its first batches are in.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const wal = writes > 0 ? await writeThenRead(port, token, writes) : undefined;
    await killWithStore(server, clusterDir);
    server = startServerProcess(dir, port, env, onCpus);
    const ms = await firstAnswer(server, port, token, 10 * 60_000);
    const cpu = await cpuSeconds(server);
    times.push(ms);
    cpus.push(cpu);
    // The start-up line comes before the tokens (a server older than it prints none).
    await printedLine(server, /^Press Ctrl\+C/, 10 * 60_000);
    const phases =
      server.lines
        .find((l) => l.line.startsWith('Start-up, '))
        ?.line.replace(/^Start-up, in seconds since the process began: /, '') ?? '(not printed)';
    const after =
      wal === undefined ? '' : ` after ${writes} writes (DuckDB WAL ${(wal / 1e6).toFixed(1)} MB)`;
    log(
      `run ${run}${after}: first 200 after ${(ms / 1000).toFixed(2)} s, ${cpu.toFixed(2)} s of CPU; the server's phases: ${phases}`,
    );
  }
  const cpuAfter = cpuLoopMs();
  const sorted = [...times].sort((a, b) => a - b);
  const workspace =
    timeEntries === undefined
      ? 'demo workspace'
      : `${timeEntries.toLocaleString('en-US')}-entry workspace`;
  process.stdout.write(
    [
      `restart after SIGKILL${writes > 0 ? ` and ${writes} writes` : ''}, ${workspace}, ${runs} runs${onCpus === undefined ? '' : `, on CPUs ${onCpus}`}: spawn to first 200 of GET ${REPORT}`,
      `  p50 ${(percentile(sorted, 50) / 1000).toFixed(2)} s, p95 ${(percentile(sorted, 95) / 1000).toFixed(2)} s (${sorted.map((ms) => (ms / 1000).toFixed(2)).join(', ')})`,
      `  CPU of the server and its processes until then: p50 ${percentile(
        [...cpus].sort((a, b) => a - b),
        50,
      ).toFixed(2)} s`,
      `machine: a fixed CPU loop took ${cpuBefore.toFixed(0)} ms before and ${cpuAfter.toFixed(0)} ms after (about 350-850 when quiet)`,
      '',
    ].join('\n'),
  );
} finally {
  await stopServerProcess(server);
  if (timeEntries === undefined) await rm(dir, { recursive: true, force: true });
  else for (const link of links) await rm(link, { force: true });
}
