import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { info } from './cli/output.ts';
import { serve } from './cli/serve.ts';
import { ConfigError, loadConfig } from './config.ts';
import { importSnapshot } from './snapshot/import.ts';
import { readSnapshot } from './snapshot/read-snapshot.ts';
import { openRuntime, type ReadModelRuntime } from './cli/runtime.ts';

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
  info(`Starting the store under ${config.databaseUrl ? 'DATABASE_URL' : config.dataDir} ...`);
  const runtime = await openRuntime(config);
  try {
    await serveDemo(runtime, config.tokenEnv);
  } catch (error) {
    // A demo that fails to start must not leave its embedded PostgreSQL running.
    await runtime.close().catch(() => undefined);
    throw error;
  }
}

async function serveDemo(runtime: ReadModelRuntime, tokenEnv: string): Promise<void> {
  const demo = JSON.parse(await readFile(DEMO, 'utf8')) as DemoFile;
  const workspaces = await runtime.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM workspaces',
  );
  if (workspaces.rows[0]?.n === 0) {
    info(`Empty store: importing the demo workspace "${demo.workspace.name}" ...`);
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
