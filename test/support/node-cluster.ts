// API nodes in processes of their own (`npm run cli -- serve` with DATABASE_URL, NODE_NAME,
// DATA_DIR and PORT, as the README's "Several API nodes" runs them) and HAProxy in front of
// them with deploy/haproxy.cfg as shipped (this run's ports): for test/deploy/ and
// bench/nodes.bench.ts. HAProxy is Debian's package (`.ci/run` installs it).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { followProcess, freePort, type ServerProcess } from './server-process.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = path.join(ROOT, 'deploy/haproxy.cfg');

/** A node's process, with what it printed. */
export interface NodeProcess extends ServerProcess {
  name: string;
  port: number;
  dataDir: string;
}

/**
 * Starts `npm run cli -- serve` as node `name` of the store at `databaseUrl`, with a read
 * model of its own under a new folder, on `port` or a free one (test tokens). It listens at
 * once and answers /healthz 503 until it has loaded and joined.
 */
export async function startNodeProcess(
  name: string,
  databaseUrl: string,
  options: { port?: number; env?: Record<string, string> } = {},
): Promise<NodeProcess> {
  const port = options.port ?? (await freePort());
  const dataDir = await mkdtemp(path.join(tmpdir(), `ll-${name}-`));
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      // The tests' and benchmarks' loads send more than a user would.
      RATE_LIMIT_REQUESTS: '100000',
      ...options.env,
      DATABASE_URL: databaseUrl,
      NODE_NAME: name,
      DATA_DIR: dataDir,
      PORT: String(port),
      TOKEN_ENV: 'test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { ...followProcess(child, spawnedAt), name, port, dataDir };
}

/** The node's /healthz: its status code and body, or 0 while nothing answers on its port. */
export async function nodeHealth(
  node: NodeProcess,
): Promise<{ status: number; body: { status?: string; sync?: { lagBytes?: number } } }> {
  try {
    const res = await fetch(`http://127.0.0.1:${node.port}/healthz`);
    return { status: res.status, body: (await res.json()) as { status?: string } };
  } catch {
    return { status: 0, body: {} };
  }
}

/** Waits until the node answers /healthz 200 (loaded and joined). */
export async function nodeJoined(node: NodeProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while ((await nodeHealth(node)).status !== 200) {
    if (node.child.exitCode !== null || performance.now() > deadline)
      throw new Error(
        `node ${node.name} did not join; it said:\n${node.lines.map((l) => l.line).join('\n')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Kills the node as a crash of its machine would (SIGKILL, no clean-up). */
export async function killNode(node: NodeProcess): Promise<void> {
  node.child.kill('SIGKILL');
  await node.exited;
}

/** Stops the node as SIGTERM does, and removes its read model's folder. */
export async function stopNode(node: NodeProcess): Promise<void> {
  if (node.child.exitCode === null && node.child.signalCode === null) {
    node.child.kill('SIGTERM');
    const timer = setTimeout(() => node.child.kill('SIGKILL'), 60_000);
    await node.exited;
    clearTimeout(timer);
  }
  await rm(node.dataDir, { recursive: true, force: true });
}

/** HAProxy running deploy/haproxy.cfg: where it listens, and how to stop it. */
export interface Balancer {
  base: string;
  /** The configuration it runs (the shipped one with this run's ports). */
  config: string;
  stop(): Promise<void>;
}

/**
 * Runs HAProxy with deploy/haproxy.cfg as shipped, listening on a free port, in front of
 * `servers` (name and port on 127.0.0.1) instead of the shipped server lines. Throws when
 * haproxy is not installed, or when it refuses the configuration. `servedBy` adds a response
 * header `X-Served-By` naming the node that answered, for the tests and benchmarks to count.
 */
export async function startBalancer(
  servers: { name: string; port: number }[],
  options: { servedBy?: boolean } = {},
): Promise<Balancer> {
  const version = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  if (version.status !== 0)
    throw new Error('haproxy is not installed: apt-get install haproxy (.ci/run does)');
  const dir = await mkdtemp(path.join(tmpdir(), 'll-haproxy-'));
  const listen = await freePort();
  const lines = servers.map((s) => `    server ${s.name} 127.0.0.1:${s.port}`);
  if (options.servedBy) lines.unshift('    http-response set-header X-Served-By %[srv_name]');
  const shipped = await readFile(CONFIG, 'utf8');
  const config = shipped
    .replace(/^ {4}bind 127\.0\.0\.1:8080$/m, `    bind 127.0.0.1:${listen}`)
    .replace(/(^ {4}server .*\n?)+/m, `${lines.join('\n')}\n`);
  if (config === shipped || !config.includes(`127.0.0.1:${listen}`))
    throw new Error('deploy/haproxy.cfg no longer has the bind and server lines this replaces');
  const file = path.join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  const check = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refused the configuration: ${check.stderr}`);
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', file], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    base: `http://127.0.0.1:${listen}`,
    config,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the balancer answers /healthz with 200 through a node. */
export async function balancerUp(balancer: Balancer, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (
    (await fetch(`${balancer.base}/healthz`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (performance.now() > deadline) throw new Error('HAProxy did not answer through a node');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
