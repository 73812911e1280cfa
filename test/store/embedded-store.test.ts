import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedStore } from '../../src/store/embedded-postgres.ts';

describe('embedded PostgreSQL start-up', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('recovers after its parent process was killed with SIGKILL, keeping committed data', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'll-crash-'));
    dirs.push(dir);
    await chmod(dir, 0o755);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/start-store-child.ts', dir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('READY') && resolve());
      child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    // The orphaned postmaster still holds the cluster; the next start must deal with it.
    const store = await startEmbeddedStore({ dataDir: dir });
    try {
      const client = new pg.Client({ connectionString: store.url });
      await client.connect();
      const { rows } = await client.query('SELECT note FROM survivors');
      await client.end();
      expect(rows).toEqual([{ note: 'committed before the crash' }]);
    } finally {
      await store.stop();
    }
  });

  it('shares a cluster another live process runs instead of stopping it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'll-shared-'));
    dirs.push(dir);
    await chmod(dir, 0o755);
    const owner = await startEmbeddedStore({ dataDir: dir });
    try {
      const guest = await startEmbeddedStore({ dataDir: dir });
      expect(new URL(guest.url).port).toBe(new URL(owner.url).port);
      await guest.stop();
      const client = new pg.Client({ connectionString: owner.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
      await client.end();
    } finally {
      await owner.stop();
    }
  });

  it('as root, explains a data folder the postgres user cannot reach instead of failing obscurely', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'll-closed-'));
    dirs.push(parent);
    await chmod(parent, 0o700);
    const start = startEmbeddedStore({ dataDir: path.join(parent, 'data') });
    // Only root hands the cluster to another user; anyone else runs it as themselves.
    if (process.getuid?.() === 0) await expect(start).rejects.toThrow(/cannot reach/);
    else await (await start).stop();
  });
});
