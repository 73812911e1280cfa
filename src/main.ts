import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { info } from './cli/output.ts';
import type { ReadModelRuntime } from './cli/runtime.ts';
import type { serve as Serve } from './cli/serve.ts';
import { StartUpTimes } from './cli/start-up-times.ts';
import { startStore } from './cli/store-start.ts';
import { ConfigError, loadConfig } from './config.ts';

const DEMO = path.resolve(import.meta.dirname, '../fixtures/demo.json');

interface DemoFile {
  workspace: { id: string; name: string };
  users: { id: string; name: string }[];
  members: { userId: string; role: string }[];
  tokens: { token: string; userId: string }[];
}

/**
 * `npm start`: the demo. Starts the store, loads fixtures/demo.json into an empty store,
 * syncs the read model, serves the API and prints a token per role and a curl line that
 * works as printed. Demo tokens are `test` tokens, so TOKEN_ENV defaults to test here.
 */
async function main(): Promise<void> {
  process.env.TOKEN_ENV ??= 'test';
  const config = loadConfig();
  const startUp = new StartUpTimes();
  startUp.record('node and modules', 0);
  info(`Starting the store under ${config.databaseUrl ? 'DATABASE_URL' : config.dataDir} ...`);
  // The store starts (and recovers, after a crash) while the rest of the server loads: its
  // modules are most of a start (docs/sync.md, "Start-up"). This file imports little for that.
  const embedded = startStore(config, startUp);
  // Its failure is thrown where it is awaited (openStore), not as an unhandled rejection meanwhile.
  embedded.catch(() => undefined);
  const modulesFrom = process.uptime();
  const { openRuntime } = await import('./cli/runtime.ts').catch(async (error: unknown) => {
    await (await embedded.catch(() => undefined))?.stop();
    throw error;
  });
  startUp.record('read model modules', modulesFrom);
  // The read model opens, and the store is migrated, while the server's modules load.
  const opening = openRuntime(config, { startUp, embedded });
  const serverFrom = process.uptime();
  const [opened, loaded] = await Promise.allSettled([
    opening,
    import('./cli/serve.ts').finally(() => startUp.record('server modules', serverFrom)),
  ]);
  if (opened.status === 'rejected') throw opened.reason;
  const runtime = opened.value;
  try {
    if (loaded.status === 'rejected') throw loaded.reason;
    await serveDemo(runtime, config.tokenEnv, loaded.value.serve);
  } catch (error) {
    // A demo that fails to start must not leave its embedded PostgreSQL running.
    await runtime.close().catch(() => undefined);
    throw error;
  }
}

async function serveDemo(
  runtime: ReadModelRuntime,
  tokenEnv: string,
  serve: typeof Serve,
): Promise<void> {
  const demo = JSON.parse(await readFile(DEMO, 'utf8')) as DemoFile;
  const workspaces = await runtime.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM workspaces',
  );
  if (workspaces.rows[0]?.n === 0) {
    info(`Empty store: importing the demo workspace "${demo.workspace.name}" ...`);
    // Only a first start imports: the importer loads with it.
    const { importSnapshot } = await import('./snapshot/import.ts');
    const { readSnapshot } = await import('./snapshot/read-snapshot.ts');
    await importSnapshot(runtime.pool, readSnapshot(DEMO));
  }
  await serve(runtime, (url) => {
    const names = new Map(demo.users.map((u) => [u.id, u.name]));
    const roles = new Map(demo.members.map((m) => [m.userId, m.role]));
    const lines = demo.tokens.map(
      (t) =>
        `  ${(roles.get(t.userId) ?? '?').padEnd(8)} ${t.token}   (${names.get(t.userId) ?? t.userId})`,
    );
    const owner = demo.tokens.find((t) => roles.get(t.userId) === 'OWNER') ?? demo.tokens[0];
    process.stdout.write(
      [
        '',
        `Demo workspace "${demo.workspace.name}" is served at ${url}/api/v1`,
        `Dashboard: ${url}/ (sign in with the Owner or Admin token below)`,
        `Tokens (env ${tokenEnv}):`,
        ...lines,
        '',
        'Try:',
        `  curl -s -H "Authorization: Bearer ${owner?.token ?? ''}" ${url}/api/v1/team-payouts/summary`,
        '',
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  });
}

main().catch((error: unknown) => {
  info(
    `error: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
