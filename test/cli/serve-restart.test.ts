import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  freePort,
  killWithStore,
  printedLine,
  said,
  startServerProcess,
  stopServerProcess,
  type ServerProcess,
} from '../support/server-process.ts';

const GLOBEX = '142c8364-7806-4577-93e7-83e7eb04b39b';

/**
 * `npm start` killed with SIGKILL, with its embedded PostgreSQL, and started again at once
 * (docs/sync.md, "Start-up"): the store starts, and recovers, while the server's modules load,
 * and the server answers with every write that PostgreSQL had committed, also one the read
 * model had not yet shown when the kill came.
 */
describe('npm start after a SIGKILL', () => {
  let dir: string;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    if (server) await stopServerProcess(server);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers again with nothing lost', { timeout: 300_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'll-serve-restart-'));
    // The embedded PostgreSQL runs as its own user when the tests run as root.
    await chmod(dir, 0o755);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/api/v1`;
    server = startServerProcess(dir, port);
    await printedLine(server, /^Press Ctrl\+C/, 120_000);
    const owner = /OWNER\s+(tt_test_\S+)/.exec(
      await printedLine(server, /^\s+OWNER\s+tt_test_/, 1000),
    )![1]!;
    const authorization = `Bearer ${owner}`;

    // Committed in PostgreSQL; killed before anyone waits for the read model to show it.
    const write = await fetch(`${base}/clients/${GLOBEX}`, {
      method: 'PATCH',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Globex, after the crash' }),
    });
    expect(write.status).toBe(200);
    const position = write.headers.get('x-data-position')!;
    await killWithStore(server, path.join(dir, 'pg'));

    server = startServerProcess(dir, port);
    let clients: Response | undefined;
    const deadline = Date.now() + 120_000;
    while (clients?.status !== 200) {
      if (server.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`no answer (${clients?.status}); the server said:\n${said(server)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      clients = await fetch(`${base}/clients`, {
        headers: { authorization, 'x-data-position': position },
      }).catch(() => undefined);
    }
    const { data } = (await clients.json()) as { data: { id: string; name: string }[] };
    expect(data.find((c) => c.id === GLOBEX)?.name).toBe('Globex, after the crash');
    expect(
      (await fetch(`${base}/team-payouts/summary`, { headers: { authorization } })).status,
    ).toBe(200);
    // The start-up line names the store's crash recovery among its phases.
    expect(await printedLine(server, /^Start-up, /, 60_000)).toMatch(/store \(crash recovery\)/);

    // Another node on this machine joins the store the server runs (docs/scale-out.md).
    const storeUrl = cli(dir, 'store-url');
    expect(storeUrl.status, storeUrl.stderr).toBe(0);
    const store = new pg.Client({ connectionString: storeUrl.stdout.trim() });
    await store.connect();
    const { rows } = await store.query<{ name: string }>('SELECT name FROM clients WHERE id = $1', [
      GLOBEX,
    ]);
    await store.end();
    expect(rows).toEqual([{ name: 'Globex, after the crash' }]);

    expect(await stopServerProcess(server)).toBe(0);
    server = undefined;
    // With no server running it, there is no URL to join: one line, exit code 1.
    const stopped = cli(dir, 'store-url');
    expect(stopped.status).toBe(1);
    expect(stopped.stderr).toMatch(/No server is running the embedded store of .*npm start/);
    expect(stopped.stdout).toBe('');
  });
});

/** `npm run cli -- <args>` with DATA_DIR (and no DATABASE_URL): its exit code and output. */
function cli(dataDir: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', path.resolve(import.meta.dirname, '../../src/cli/main.ts'), ...args],
    { env, encoding: 'utf8' },
  );
}
