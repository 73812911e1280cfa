// Shared set-up for the benchmarks: a store with a generated workspace, kept between runs
// under BENCH_DIR so the slow part (generating and importing) is paid once.
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type pg from 'pg';
import { generateWorkspace, type GenerateOptions } from '../src/snapshot/generate.ts';
import { importSnapshot } from '../src/snapshot/import.ts';
import { readSnapshot } from '../src/snapshot/read-snapshot.ts';
import { openReadModel, type ReadModel } from '../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../src/readmodel/read-model-status.ts';
import { fullSync } from '../src/sync/full-sync.ts';
import { startEmbeddedStore, type EmbeddedStore } from '../src/store/embedded-postgres.ts';
import { migrate } from '../src/store/migrate.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../src/cli/derived-tables.ts';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDependencies } from '../src/http/app.ts';
import { createKysely, createPool } from '../src/store/database.ts';
import type { Scope } from '../src/store/schema.ts';
import { SyncService } from '../src/sync/sync-service.ts';
import { TokenIdentityCache } from '../src/tokens/token-identity-cache.ts';
import { createToken } from '../src/tokens/token.repository.ts';

export interface BenchStore {
  store: EmbeddedStore;
  pool: pg.Pool;
  url: string;
  dir: string;
  /** Stops the store; drops the replication slots nobody follows, but those in `keepSlots`. */
  close(keepSlots?: string[]): Promise<void>;
}

/**
 * An embedded store under `dir` holding a generated workspace of `timeEntries` entries
 * (and the generator's other `options`, e.g. more clients).
 */
export async function benchStore(
  dir: string,
  timeEntries: number,
  options: Partial<Omit<GenerateOptions, 'timeEntries' | 'seed'>> = {},
): Promise<BenchStore> {
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  const store = await startEmbeddedStore({ dataDir: path.join(dir, 'data') });
  const pool = createPool(store.url, 20);
  await migrate(pool);
  const { rows } = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM time_entries');
  if (Number(rows[0]!.n) < timeEntries) {
    const file = path.join(dir, `workspace-${timeEntries}.ndjson`);
    log(
      `preparing: generating ${timeEntries.toLocaleString('en-US')} time entries (once per BENCH_DIR)`,
    );
    const out = createWriteStream(file);
    await generateWorkspace({ ...options, timeEntries, seed: 7 }, out);
    await new Promise<void>((resolve) => out.end(() => resolve()));
    log('preparing: importing');
    await importSnapshot(pool, readSnapshot(file), {
      replace: true,
      onProgress: (n) => n % 1_000_000 === 0 && log(`  read ${n}`),
    });
    await rm(file);
  }
  return {
    store,
    pool,
    url: store.url,
    dir,
    close: async (keepSlots = []) => {
      // Slots of read models that were thrown away would hold WAL in the kept store; a kept
      // read model's slot lets its next run stream on instead of loading again.
      await pool.query(
        `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
         WHERE NOT active AND slot_name <> ALL($1::text[])`,
        [keepSlots],
      );
      await pool.end();
      await store.stop();
    },
  };
}

/**
 * The read model kept at `file` for the store of `bench`: it serves when it holds what the
 * store holds (same entries, same last change); otherwise, or when an upgrade emptied it, it
 * is loaded again (minutes on the 10M-entry store, once per store change).
 */
export async function keptReadModel(
  bench: BenchStore,
  file: string,
): Promise<{ readModel: ReadModel; status: ReadModelStatus }> {
  const readModel = await openReadModel(file, READ_MODEL_PARTS);
  const status = new ReadModelStatus();
  await status.load(readModel);
  const fingerprint = 'SELECT count(*) AS n, max(updated_at) AS at FROM time_entries';
  const store = (await bench.pool.query<{ n: string; at: Date }>(fingerprint)).rows[0]!;
  const duck = await readModel.connect();
  const kept = (await duck.runAndReadAll(fingerprint)).getRowObjectsJS()[0]!;
  duck.closeSync();
  if (
    !status.ready ||
    typeof kept.n !== 'bigint' ||
    kept.n.toString() !== store.n ||
    (kept.at as Date | null)?.getTime() !== store.at.getTime()
  ) {
    log('loading the read model (once per BENCH_DIR and store change)');
    const started = performance.now();
    const result = await fullSync(bench.pool, readModel, DERIVED_TABLES);
    status.committed(result.dataAsOf, 'everything');
    log(
      `  ${result.rows.toLocaleString('en-US')} rows in ${((performance.now() - started) / 1000).toFixed(0)} s, of which ${(result.derivedMs / 1000).toFixed(0)} s building the search index and the summaries`,
    );
  }
  return { readModel, status };
}

/**
 * An empty read model in a fresh folder, for a benchmark of the sync over the store of `bench`:
 * `sync()` makes a sync service that follows the store into it; `close()` closes the read model
 * and the store and removes the folder.
 */
export async function syncedReadModel(bench: BenchStore, prefix: string) {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  const readModel = await openReadModel(path.join(dir, 'read-model.duckdb'), READ_MODEL_PARTS);
  return {
    readModel,
    sync: () =>
      new SyncService({
        pool: bench.pool,
        url: bench.url,
        readModel,
        derived: DERIVED_TABLES,
        status: new ReadModelStatus(),
        log,
      }),
    close: async () => {
      readModel.close();
      await bench.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What a benchmark of the read model's statements builds its app with: token identities kept
 * in memory as `npm start` keeps them, no rate limit, and no answer kept, since the statements
 * are measured (bench/README.md).
 */
export function measuredAppDependencies(
  deps: Pick<AppDependencies, 'db' | 'readModel' | 'status' | 'tokenIdentities'>,
) {
  return { ...deps, tokenEnv: 'test', rateLimit: { requests: 1e9 }, answerCacheChars: 0 } as const;
}

export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * How long a fixed CPU loop takes, in ms: the machine's speed at the moment, printed beside a
 * run so that a slow machine can be told from slow code. On this 2-core VM it takes about
 * 350-850 ms when the machine is quiet and 900 or more when other work shares the cores.
 */
export function cpuLoopMs(): number {
  const start = performance.now();
  let sum = 0;
  for (let i = 0; i < 3e8; i++) sum += i % 7;
  // Using the sum keeps the loop from being optimized away.
  if (sum < 0) throw new Error('unreachable');
  return performance.now() - start;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** p50 and p99 of a run of requests, and what happened during the slowest of them. */
export interface Timing {
  p50: number;
  p99: number;
  /**
   * The requests at and above the p99, slowest first, each with the CPU time this process
   * spent during it (all its threads: JavaScript, DuckDB's, libuv's) and the time V8's
   * garbage collector paused JavaScript in it. Wall time far above CPU time is time waiting:
   * for the machine (a 2-core VM's stalls), the disk or another process; not for our code.
   */
  slowest: { ms: number; cpuMs: number; gcMs: number; majorGc: boolean }[];
}

/**
 * Times `runs` calls of `run`, one after another, after `warmUp` untimed ones; also records
 * each call's CPU time and the garbage collections in it (Timing.slowest).
 */
export async function timeRuns(
  runs: number,
  run: () => Promise<unknown>,
  warmUp = 1,
): Promise<Timing> {
  for (let i = 0; i < warmUp; i++) await run();
  // Start from a collected heap (node --expose-gc, which bench/run.ts passes): the garbage of
  // what ran before (another case, a run without caches, PostgreSQL's rows) is not collected
  // during, and charged to, these runs; the collections they cause themselves still are.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    // Its sweeping goes on in V8's helper threads for a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const gcs: { start: number; end: number; major: boolean }[] = [];
  const record = (e: PerformanceEntry) =>
    gcs.push({
      start: e.startTime,
      end: e.startTime + e.duration,
      major:
        (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ===
        constants.NODE_PERFORMANCE_GC_MAJOR,
    });
  const observer = new PerformanceObserver((list) => list.getEntries().forEach(record));
  observer.observe({ entryTypes: ['gc'] });
  const samples: { start: number; ms: number; cpuMs: number }[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      await run();
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu);
      samples.push({ start, ms, cpuMs: (used.user + used.system) / 1000 });
    }
    // The observer is told of the last collections asynchronously.
    await new Promise((resolve) => setImmediate(resolve));
    observer.takeRecords().forEach(record);
  } finally {
    observer.disconnect();
  }
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const p99 = percentile(sorted, 99);
  const overlap = (g: { start: number; end: number }, s: { start: number; ms: number }) =>
    Math.max(0, Math.min(g.end, s.start + s.ms) - Math.max(g.start, s.start));
  const gcIn = (s: { start: number; ms: number }) => gcs.reduce((sum, g) => sum + overlap(g, s), 0);
  const majorIn = (s: { start: number; ms: number }) =>
    gcs.some((g) => g.major && overlap(g, s) > 0);
  return {
    p50: percentile(sorted, 50),
    p99,
    slowest: samples
      .filter((s) => s.ms >= p99)
      .sort((a, b) => b.ms - a.ms)
      .map((s) => ({ ms: s.ms, cpuMs: s.cpuMs, gcMs: gcIn(s), majorGc: majorIn(s) })),
  };
}

/** Timing.slowest as one line: "486.8 ms (CPU 31.2, GC 0.0), 120.1 ms (...)". */
export function slowestText(timing: Timing): string {
  return timing.slowest
    .map(
      (s) =>
        `${s.ms.toFixed(1)} ms (CPU ${s.cpuMs.toFixed(1)}, GC ${s.gcMs.toFixed(1)}${s.majorGc ? ' major' : ''})`,
    )
    .join(', ');
}

/** The generated workspace served as `npm start` serves it, with an Owner token of its own. */
export interface ServedWorkspace {
  pool: pg.Pool;
  app: FastifyInstance;
  /** The sync following the store, to wait for it to catch up. */
  sync: SyncService;
  workspaceId: string;
  token: string;
  /** Another Owner token of the workspace (a second person: its reads wait for none of `token`'s writes). */
  mintToken(): Promise<string>;
  /** Stops the app, the sync and the store, keeping the sync's slot for the next run. */
  close(): Promise<void>;
}

/**
 * The `timeEntries` workspace under BENCH_DIR (default: a folder of the temp dir named after
 * its size), its read model following the store by logical replication as `npm start` does
 * (src/cli/serve.ts): loaded when it follows no slot (once per BENCH_DIR: the slot is kept at
 * the end), then streaming every commit. The app is not rate-limited, and serves the dashboard
 * when `dashboardDir` is given.
 */
export async function servedWorkspace(
  timeEntries: number,
  options: { scopes: Scope[]; dashboardDir?: string },
): Promise<ServedWorkspace> {
  const dir =
    process.env.BENCH_DIR ??
    path.join(tmpdir(), timeEntries === 10_000_000 ? 'll-bench-10m' : `ll-bench-${timeEntries}`);
  const bench = await benchStore(dir, timeEntries);
  const db = createKysely(bench.pool);
  const readModel = await openReadModel(path.join(dir, 'read-model.duckdb'), READ_MODEL_PARTS);
  const status = new ReadModelStatus();
  await status.load(readModel);
  const sync = new SyncService({
    pool: bench.pool,
    url: bench.url,
    readModel,
    derived: DERIVED_TABLES,
    status,
    log,
  });
  const tokenIdentities = await TokenIdentityCache.listen(bench.pool);
  let app: FastifyInstance | undefined;
  const close = async () => {
    await app?.close();
    const slot = sync.metrics.slotName;
    await sync.stop();
    await tokenIdentities.close();
    readModel.close();
    // The sync's slot stays, so the next run streams on from it instead of loading again.
    await bench.close(slot === null ? [] : [slot]);
  };
  try {
    const loadStarted = performance.now();
    await sync.start();
    log(`sync following the store (${((performance.now() - loadStarted) / 1000).toFixed(0)} s)`);
    app = await buildApp({
      db,
      readModel,
      status,
      tokenEnv: 'test',
      sync,
      tokenIdentities,
      rateLimit: { requests: 1e9 },
      // The read model's answers are measured: none is kept (bench/README.md).
      answerCacheChars: 0,
      ...(options.dashboardDir ? { dashboardDir: options.dashboardDir } : {}),
    });
    const { rows } = await bench.pool.query<{ workspace_id: string; user_id: string }>(
      `SELECT workspace_id, user_id FROM members WHERE role = 'OWNER' AND deleted_at IS NULL LIMIT 1`,
    );
    const owner = rows[0]!;
    // The generated workspace is on the Agency plan, which the team-payout reports need.
    const mintToken = async () =>
      (
        await createToken(db, {
          workspaceId: owner.workspace_id,
          userId: owner.user_id,
          scopes: options.scopes,
          env: 'test',
        })
      ).token;
    const token = await mintToken();
    return {
      pool: bench.pool,
      app,
      sync,
      workspaceId: owner.workspace_id,
      token,
      mintToken,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export interface DemoStore {
  /** The temporary folder the store's data is in (a server started on it shares it). */
  dataDir: string;
  store: EmbeddedStore;
  pool: pg.Pool;
  /** Read-write tokens of the demo's Owners and Admins, in turn. */
  tokens: string[];
  /** Stops the store and removes its folder. */
  close: () => Promise<void>;
}

/**
 * The demo workspace (fixtures/demo.json) imported into a fresh embedded store, as `npm start`
 * loads it, with `tokens` read-write tokens of its Owners and Admins, who may call every route.
 */
export async function demoStore(name: string, tokens: number): Promise<DemoStore> {
  const demoFile = path.resolve(import.meta.dirname, '../fixtures/demo.json');
  const demo = JSON.parse(await readFile(demoFile, 'utf8')) as {
    workspace: { id: string };
    members: { userId: string; role: string }[];
  };
  const dataDir = await mkdtemp(path.join(tmpdir(), `ll-${name}-`));
  const store = await startEmbeddedStore({ dataDir });
  const pool = createPool(store.url, 4);
  const close = async () => {
    await pool.end();
    await store.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await migrate(pool);
    await importSnapshot(pool, readSnapshot(demoFile));
    const db = createKysely(pool);
    const admins = demo.members.filter((m) => m.role === 'OWNER' || m.role === 'ADMIN');
    const made: string[] = [];
    for (let i = 0; i < tokens; i++)
      made.push(
        (
          await createToken(db, {
            workspaceId: demo.workspace.id,
            userId: admins[i % admins.length]!.userId,
            scopes: ['read', 'write'],
            env: 'test',
          })
        ).token,
      );
    return { dataDir, store, pool, tokens: made, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The options of an open-loop benchmark (requests sent at a constant rate, whatever the
 * answers): `--rate R` requests per second, `--seconds S` of load.
 */
export function openLoopOptions(defaultRate: number): { rate: number; runMs: number } {
  const { values } = parseArgs({
    options: {
      rate: { type: 'string', default: String(defaultRate) },
      seconds: { type: 'string', default: '60' },
    },
  });
  return { rate: Number(values.rate), runMs: Number(values.seconds) * 1000 };
}
