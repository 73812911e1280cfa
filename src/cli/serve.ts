import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.ts';
import type { ReadModelRuntime } from './runtime.ts';
import { ExportScheduler, loadSchedules } from '../exports/schedules.ts';
import { SyncService } from '../sync/sync-service.ts';
import { TokenIdentityCache } from '../tokens/token-identity-cache.ts';
import { DERIVED_TABLES } from './derived-tables.ts';
import { WEBHOOK_RECORDS } from './webhook-records.ts';
import { WebhookProducer } from '../webhooks/producer.ts';
import { WebhookSender } from '../webhooks/sender.ts';
import { info, nodeLog } from './output.ts';
import { DASHBOARD_DIR, ensureDashboard } from './dashboard-build.ts';
import { startProgress, type Progress } from './progress.ts';

/**
 * Serves the API: listens at once (reports answer 503 until the first sync has finished
 * when the read model was never built), brings the read model up to date, and shuts down
 * cleanly on SIGINT or SIGTERM.
 */
export async function serve(
  runtime: ReadModelRuntime,
  onListening?: (url: string) => void,
): Promise<FastifyInstance> {
  const { config, startUp } = runtime;
  const say = nodeLog(config.nodeName);
  // Checked before anything listens: a bad schedules file is one line and exit code 1.
  const schedules = config.exportSchedules ? await loadSchedules(config.exportSchedules) : [];
  const sync = createSyncService(runtime);
  const tokenIdentities = await startUp.time('token cache', () =>
    TokenIdentityCache.listen(runtime.pool, (error) =>
      say(
        `token cache: lost its PostgreSQL notifications, reading tokens from the store (${String(error)})`,
      ),
    ),
  );
  // Built again when a file it is built from changed (a second or two), so it is always the
  // code checked out.
  await startUp.time('dashboard', () => ensureDashboard());
  const webhookSender = new WebhookSender({
    pool: runtime.pool,
    node: config.nodeName ?? hostname(),
    allowPrivate: config.webhookAllowPrivate,
    log: say,
  });
  const webhookProducer = new WebhookProducer({
    pool: runtime.pool,
    url: runtime.url,
    sources: WEBHOOK_RECORDS,
    log: say,
    onProduced: () => webhookSender.nudge(),
  });
  const appStarted = process.uptime();
  const app = await buildApp({
    dashboardDir: DASHBOARD_DIR,
    db: runtime.db,
    readModel: runtime.readModel,
    status: runtime.status,
    tokenEnv: config.tokenEnv,
    logLevel: config.logLevel,
    sync,
    ...(config.nodeName === undefined ? {} : { nodeName: config.nodeName }),
    joinLagMs: config.joinLagMs,
    webhooks: { producer: webhookProducer, sender: webhookSender },
    webhookAllowPrivate: config.webhookAllowPrivate,
    recordCacheRows: config.recordCacheRows,
    answerCacheChars: config.answerCacheChars,
    tokenIdentities,
    rateLimit: {
      ...(config.rateLimitRequests === undefined ? {} : { requests: config.rateLimitRequests }),
      ...(config.rateLimitWindowSeconds === undefined
        ? {}
        : { windowSeconds: config.rateLimitWindowSeconds }),
    },
  });
  startUp.record('app', appStarted);
  const scheduler = new ExportScheduler({
    readModel: runtime.readModel,
    pool: runtime.pool,
    node: config.nodeName ?? hostname(),
    status: runtime.status,
    schedules,
    log: say,
  });
  const close = async () => {
    await webhookProducer.stop();
    await webhookSender.stop();
    await scheduler.stop();
    await app.close();
    await tokenIdentities.close();
    await sync.stop();
    await runtime.close();
  };
  const shutdown = async (signal: string) => {
    say(`${signal}: shutting down`);
    await close();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void shutdown(signal));
  }
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  try {
    await startUp.time('listen', () => app.listen({ host: config.host, port: config.port }));
    say(`Listening on ${url} (tokens of env "${config.tokenEnv}")`);
    // Runs for the life of the server: the first load (when the read model has none), then
    // every committed change as it streams in.
    await startUp.time('sync', () => sync.start());
    say(`Start-up, in seconds since the process began: ${startUp.toString()}`);
    // Webhooks need the replication stream: a store that allows only the change log has none.
    if (sync.metrics.mode === 'replication') {
      webhookSender.start();
      webhookProducer.start();
    }
  } catch (error) {
    // A server that cannot start stops what it started, its embedded PostgreSQL included.
    await close().catch(() => undefined);
    throw error;
  }
  if (schedules.length > 0) {
    say(`Export schedules: ${schedules.map((s) => `${s.id} (${s.cron.source})`).join(', ')}`);
    // Catches up on times missed while the server was down, then runs each on its timer.
    scheduler
      .start()
      .catch((error: unknown) =>
        say(`export schedules: ${error instanceof Error ? error.message : String(error)}`),
      );
  }
  onListening?.(url);
  return app;
}

/**
 * The sync of a runtime, reporting a load's progress on stderr (plain lines unless a
 * `progress` is given: a server's bar would be torn by its log lines).
 */
export function createSyncService(
  runtime: ReadModelRuntime,
  progress: Progress = startProgress('sync: rows', { tty: false }),
): SyncService {
  const node = runtime.config.nodeName;
  return new SyncService({
    pool: runtime.pool,
    url: runtime.url,
    readModel: runtime.readModel,
    status: runtime.status,
    derived: DERIVED_TABLES,
    log: nodeLog(node),
    ...(node === undefined ? {} : { nodeName: node }),
    ...(runtime.config.publication === undefined
      ? {}
      : { publication: runtime.config.publication }),
    onProgress: (p) =>
      progress.update(p.rows, p.estimatedRows, `table ${p.done}/${p.tables} ${p.table}`),
  });
}

/** `npm run cli -- sync`: brings the read model up to the store's current position and returns. */
export async function syncNow(runtime: ReadModelRuntime): Promise<void> {
  const progress = startProgress('sync: rows');
  const sync = createSyncService(runtime, progress);
  const started = Date.now();
  await sync.catchUp().finally(() => progress.stop());
  info(
    `sync: up to date at ${sync.metrics.appliedLsn} in ${((Date.now() - started) / 1000).toFixed(1)} s (${sync.metrics.rowsApplied.toLocaleString('en-US')} changes streamed, ${sync.metrics.fullLoads} full load${sync.metrics.fullLoads === 1 ? '' : 's'}); data as of ${runtime.status.dataAsOf?.toISOString() ?? '-'}`,
  );
}
