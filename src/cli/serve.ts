import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.ts';
import type { ReadModelRuntime } from '../runtime.ts';
import { fullSync } from '../sync/full-sync.ts';
import { info } from './output.ts';

/**
 * Serves the API: listens at once (reports answer 503 until the first sync has finished
 * when the read model was never built), brings the read model up to date, and shuts down
 * cleanly on SIGINT or SIGTERM.
 */
export async function serve(
  runtime: ReadModelRuntime,
  onListening?: (url: string) => void,
): Promise<FastifyInstance> {
  const { config } = runtime;
  const app = await buildApp({
    db: runtime.db,
    readModel: runtime.readModel,
    status: runtime.status,
    tokenEnv: config.tokenEnv,
    logLevel: config.logLevel,
  });
  const shutdown = async (signal: string) => {
    info(`${signal}: shutting down`);
    await app.close();
    await runtime.close();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void shutdown(signal));
  }
  await app.listen({ host: config.host, port: config.port });
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  info(`Listening on ${url} (tokens of env "${config.tokenEnv}")`);
  await syncNow(runtime);
  onListening?.(url);
  return app;
}

export async function syncNow(runtime: ReadModelRuntime): Promise<void> {
  const result = await fullSync(runtime.pool, runtime.readModel, {
    onProgress: (p) => {
      if (p.done === p.tables || p.done % 5 === 0)
        info(`sync: ${p.done}/${p.tables} tables, ${p.rows.toLocaleString('en-US')} rows`);
    },
  });
  runtime.status.dataAsOf = result.dataAsOf;
  info(
    `sync: ${result.rows.toLocaleString('en-US')} rows in ${(result.elapsedMs / 1000).toFixed(1)} s; data as of ${result.dataAsOf.toISOString()}`,
  );
}
