import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeAbandonedUnpacks } from '../support/browser.ts';

describe("the tests' Chromium", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('removes the partial unpack of a process that no longer runs, and only that', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'll-chromium-unpacks-'));
    const folder = path.join(dir, 'ledgerline-chromium-9.9.9');
    const child = spawn(process.execPath, ['-e', '0']);
    const dead = await new Promise<number>((resolve) =>
      child.once('exit', () => resolve(child.pid!)),
    );
    for (const name of [
      `${folder}.partial-${dead}`,
      `${folder}.partial-${process.pid}`,
      `${folder}.partial-x`,
      `${path.join(dir, 'ledgerline-chromium-1.0.0')}.partial-${dead}`,
    ])
      await mkdir(path.join(name, 'inside'), { recursive: true });
    await removeAbandonedUnpacks(folder);
    expect((await readdir(dir)).sort()).toEqual([
      'ledgerline-chromium-1.0.0.partial-' + dead,
      `ledgerline-chromium-9.9.9.partial-${process.pid}`,
      'ledgerline-chromium-9.9.9.partial-x',
    ]);
  });
});
