import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDashboard } from '../../src/cli/dashboard-build.ts';
import { registerDashboard } from '../../src/http/dashboard.route.ts';

type Inputs = { files: Record<string, { size: number; mtimeMs: number; sha256: string }> };

/**
 * The server builds the dashboard at start only when a file it is built from changed
 * (docs/dashboard.md, "How it is built and served"). The build of the run (global set-up)
 * is copied and its record of inputs edited, as a changed file would leave it: the sources
 * themselves stay as checked out.
 */
describe('the dashboard build at start', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'll-dashboard-build-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const copyOfBuild = async (name: string) => {
    const out = path.join(dir, name);
    await cp(inject('dashboardDir'), out, { recursive: true });
    return out;
  };
  const inputsOf = async (out: string) =>
    JSON.parse(await readFile(path.join(out, '.inputs.json'), 'utf8')) as Inputs;

  it('keeps a build whose inputs are the files checked out', async () => {
    const out = await copyOfBuild('current');
    const before = await readFile(path.join(out, 'app.js'), 'utf8');
    expect(await ensureDashboard(out)).toBe('current');
    expect(await readFile(path.join(out, 'app.js'), 'utf8')).toBe(before);
  });

  it('builds again when a file it read has other bytes than when it was built', async () => {
    const out = await copyOfBuild('changed');
    const inputs = await inputsOf(out);
    const source = Object.keys(inputs.files).find((file) => file.startsWith('src/'))!;
    inputs.files[source] = { ...inputs.files[source]!, mtimeMs: 0, sha256: '0'.repeat(64) };
    await writeFile(path.join(out, '.inputs.json'), JSON.stringify(inputs));
    expect(await ensureDashboard(out)).toBe('built');
    expect((await inputsOf(out)).files[source]!.sha256).not.toBe('0'.repeat(64));
    expect(await ensureDashboard(out)).toBe('current');
  });

  it('keeps a build when only a modification time moved (a checkout of the same bytes)', async () => {
    const out = await copyOfBuild('touched');
    const inputs = await inputsOf(out);
    for (const file of Object.values(inputs.files)) file.mtimeMs -= 1000;
    await writeFile(path.join(out, '.inputs.json'), JSON.stringify(inputs));
    expect(await ensureDashboard(out)).toBe('current');
  });

  it('builds a folder without a record of its inputs, which it never serves', async () => {
    const out = await copyOfBuild('unrecorded');
    await rm(path.join(out, '.inputs.json'));
    expect(await ensureDashboard(out)).toBe('built');
    const app = Fastify();
    await registerDashboard(app, out);
    expect((await app.inject({ url: '/app.js' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/.inputs.json' })).statusCode).toBe(404);
    await app.close();
  });
});
