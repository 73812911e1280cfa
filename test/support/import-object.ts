import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import {
  importSnapshot,
  type ImportOptions,
  type ImportResult,
} from '../../src/snapshot/import.ts';
import { readSnapshot } from '../../src/snapshot/read-snapshot.ts';

/** Imports a snapshot given as an object, through a JSON file as the CLI would read it. */
export async function importObject(
  pool: pg.Pool,
  snapshot: unknown,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'll-snapshot-'));
  try {
    const file = path.join(dir, 'snapshot.json');
    await writeFile(file, JSON.stringify(snapshot));
    return await importSnapshot(pool, readSnapshot(file), options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
