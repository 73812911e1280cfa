// The server as `npm start` runs it, in a process of its own: started, killed with everything it
// runs (SIGKILL, as a crash would), stopped as Ctrl+C stops it. Used by test/cli/serve-restart.test.ts
// and bench/restart.bench.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

// `npm start` is `node <flags> <entry>`: the same flags and entry, without npm in between.
const START = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start.split(' ');

/** A running server: its process and what it printed, each line with the ms since its spawn. */
export interface ServerProcess {
  child: ChildProcess;
  spawnedAt: number;
  lines: { ms: number; line: string }[];
  exited: Promise<number | null>;
}

/**
 * Spawns `npm start`'s command with DATA_DIR and PORT (and `env`) set; on the CPUs of `cpus`
 * only (a list as taskset takes it, `0` or `0,1`), with every process it starts, when given.
 */
export function startServerProcess(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
  cpus?: string,
): ServerProcess {
  if (START[0] !== 'node') throw new Error(`npm start runs ${START[0]}, not node`);
  const command = [process.execPath, ...START.slice(1)];
  // taskset runs the command in its own process (exec), so the pid is the server's.
  if (cpus !== undefined) command.unshift('taskset', '--cpu-list', cpus);
  const spawnedAt = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, ...env, DATA_DIR: dataDir, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return followProcess(child, spawnedAt);
}

/**
 * A spawned process (stdout and stderr piped) as a ServerProcess: each line it prints, with
 * the ms since `spawnedAt`, and its exit.
 */
export function followProcess(child: ChildProcess, spawnedAt: number): ServerProcess {
  const server: ServerProcess = {
    child,
    spawnedAt,
    lines: [],
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      for (const line of parts) server.lines.push({ ms: performance.now() - spawnedAt, line });
    });
  }
  return server;
}

/** Everything the server printed, for an error message. */
export function said(server: ServerProcess): string {
  return server.lines.map((l) => l.line).join('\n');
}

/** The first line the server printed that matches `pattern`, once it has printed it. */
export async function printedLine(
  server: ServerProcess,
  pattern: RegExp,
  timeoutMs: number,
): Promise<string> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = server.lines.find((l) => pattern.test(l.line));
    if (found) return found.line;
    if (server.child.exitCode !== null || performance.now() > deadline) {
      throw new Error(`the server did not print ${String(pattern)}; it said:\n${said(server)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Kills the server, the embedded PostgreSQL of `clusterDir` and that server's processes with
 * SIGKILL at once (what a crash of their machine or container does), and returns once each is
 * gone or a zombie (which holds nothing).
 */
export async function killWithStore(server: ServerProcess, clusterDir: string): Promise<void> {
  const postmaster = Number(
    (await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0],
  );
  const pids = [server.child.pid!, postmaster, ...(await childrenOf(postmaster))];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  await server.exited;
  for (const pid of pids) {
    while (!(await goneOrZombie(pid))) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Stops the server as Ctrl+C does (its PostgreSQL shuts down, DuckDB checkpoints); its exit code. */
export async function stopServerProcess(server: ServerProcess): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  server.child.kill('SIGINT');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 120_000);
  const code = await server.exited;
  clearTimeout(timer);
  return code;
}

/** A TCP port nothing listens on at the moment. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * CPU seconds the server has used so far, with every process under it (its PostgreSQL, the
 * dashboard's esbuild) and the children it has reaped: what its start cost whatever else ran
 * on the machine. Linux counts them in clock ticks of 1/100 s.
 */
export async function cpuSeconds(server: ServerProcess): Promise<number> {
  const stats = new Map<number, string[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // After "pid (comm) ": state, ppid, ..., utime (14th field), stime, cutime, cstime.
    if (stat !== '') stats.set(Number(entry), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
  }
  const tree = new Set([server.child.pid!]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, fields] of stats) {
      if (!tree.has(pid) && tree.has(Number(fields[1]))) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const pid of tree) {
    const fields = stats.get(pid);
    if (fields) ticks += [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  }
  return ticks / 100;
}

async function childrenOf(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) {
      found.push(Number(entry));
    }
  }
  return found;
}

async function goneOrZombie(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat === '' || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}
