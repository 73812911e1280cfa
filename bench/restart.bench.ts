// How soon does the server answer again after it and its embedded PostgreSQL were killed with
// SIGKILL (issue 38)? The server runs as `npm start` runs it (package.json's start script: its
// node flags and src/main.ts) on a data dir. Each run kills the server, its postmaster and the
// postmaster's processes with SIGKILL once the server follows the store, starts it again and
// times from the spawn to the first 200 of an authenticated GET /api/v1/team-payouts/summary
// (asked every 20 ms). The server's own start-up line (its phases, in seconds since its process
// began: src/cli/start-up-times.ts) is printed for each run.
// Baseline, same run: the fixed CPU loop before and after.
//   npm run bench -- restart [--time-entries N] [--runs R]
//   Without N: the demo workspace (fixtures/demo.json), imported by a first start into a fresh
//   data dir (BENCH_DIR, default <tmp>/ll-bench-restart-demo, removed at the end). With N: the
//   generated workspace of N entries kept under BENCH_DIR as the served benchmarks keep it
//   (support.ts: the store under data/, read-model.duckdb beside it; default
//   <tmp>/ll-bench-10m for 10,000,000); the server's DATA_DIR is BENCH_DIR, where links pg and
//   cluster.json to data/ stand while the benchmark runs. R defaults to 5.
import { rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createKysely } from '../src/store/database.ts';
import { createToken } from '../src/tokens/token.repository.ts';
import {
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
  },
});
const timeEntries = args['time-entries'] === undefined ? undefined : Number(args['time-entries']);
const runs = Number(args.runs);
const REPORT = '/api/v1/team-payouts/summary';

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
if (timeEntries === undefined) {
  await rm(dir, { recursive: true, force: true });
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
      scopes: ['read'],
      env: 'test',
    })
  ).token;
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

const port = await freePort();
const clusterDir = path.join(dir, 'pg');
let server = startServerProcess(dir, port);
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
  for (let run = 1; run <= runs; run++) {
    // A server that has run a moment: the sync follows the store, its first batches are in.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await killWithStore(server, clusterDir);
    server = startServerProcess(dir, port);
    const ms = await firstAnswer(server, port, token, 10 * 60_000);
    times.push(ms);
    const phases = (await printedLine(server, /^Start-up, /, 10 * 60_000)).replace(
      /^Start-up, in seconds since the process began: /,
      '',
    );
    log(`run ${run}: first 200 after ${(ms / 1000).toFixed(2)} s; the server's phases: ${phases}`);
  }
  const cpuAfter = cpuLoopMs();
  const sorted = [...times].sort((a, b) => a - b);
  const workspace =
    timeEntries === undefined
      ? 'demo workspace'
      : `${timeEntries.toLocaleString('en-US')}-entry workspace`;
  process.stdout.write(
    [
      `restart after SIGKILL, ${workspace}, ${runs} runs: spawn to first 200 of GET ${REPORT}`,
      `  p50 ${(percentile(sorted, 50) / 1000).toFixed(2)} s, p95 ${(percentile(sorted, 95) / 1000).toFixed(2)} s (${sorted.map((ms) => (ms / 1000).toFixed(2)).join(', ')})`,
      `machine: a fixed CPU loop took ${cpuBefore.toFixed(0)} ms before and ${cpuAfter.toFixed(0)} ms after (about 350-850 when quiet)`,
      '',
    ].join('\n'),
  );
} finally {
  await stopServerProcess(server);
  if (timeEntries === undefined) await rm(dir, { recursive: true, force: true });
  else for (const link of links) await rm(link, { force: true });
}
