import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type pg from 'pg';
import { exportSnapshot } from '../../src/snapshot/export.ts';
import { generateWorkspace, type GenerateOptions } from '../../src/snapshot/generate.ts';
import { importSnapshot } from '../../src/snapshot/import.ts';
import { readSnapshot } from '../../src/snapshot/read-snapshot.ts';

export interface GeneratedWorkspace {
  id: string;
  timezone: string;
  /** A read+write token of the workspace's Owner (from the generated file). */
  ownerToken: string;
  /** The workspace as the store holds it, exported as a JSON snapshot document. */
  snapshot: unknown;
}

/**
 * The generator's options for the `seed`-th small workspace of the report comparisons: 30-249
 * entries, 5-8 clients, 4-8 members, varying with the seed.
 */
export function smallWorkspaceOptions(seed: number): GenerateOptions {
  return {
    seed,
    timeEntries: 30 + ((seed * 7919) % 220),
    clients: 5 + (seed % 4),
    members: 4 + (seed % 5),
  };
}

/**
 * Generates a workspace with the snapshot generator, imports it into the store, and exports
 * it back: the exported document is exactly what the store holds (ids, timestamps, defaults),
 * which is what an independent computation must start from.
 */
export async function generatedWorkspace(
  pool: pg.Pool,
  options: GenerateOptions,
): Promise<GeneratedWorkspace> {
  const dir = await mkdtemp(path.join(tmpdir(), 'll-generated-'));
  try {
    const out = new PassThrough();
    let ndjson = '';
    out.on('data', (chunk: Buffer) => (ndjson += chunk.toString('utf8')));
    await generateWorkspace(options, out);
    const file = path.join(dir, 'workspace.ndjson');
    await writeFile(file, ndjson);
    await importSnapshot(pool, readSnapshot(file));
    const records = ndjson
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const workspace = records.find((r) => r.type === 'workspace')!;
    const owner = records.find((r) => r.type === 'member' && r.role === 'OWNER')!;
    const token = records.find(
      (r) =>
        r.type === 'token' &&
        r.userId === owner.userId &&
        (r.scopes === undefined || (r.scopes as string[]).includes('read')) &&
        !r.revokedAt,
    );
    if (!token) throw new Error('The generated workspace has no readable Owner token');
    const exported = path.join(dir, 'export.json');
    await exportSnapshot(pool, workspace.id as string, exported);
    return {
      id: workspace.id as string,
      timezone: workspace.timezone as string,
      ownerToken: token.token as string,
      snapshot: JSON.parse(await readFile(exported, 'utf8')) as unknown,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
