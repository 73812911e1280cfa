import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { openReadModel } from '../src/readmodel/read-model.ts';
import { importSnapshot } from '../src/snapshot/import.ts';
import { readSnapshot } from '../src/snapshot/read-snapshot.ts';
import { generateWorkspace } from '../src/snapshot/generate.ts';
import { createPool } from '../src/store/database.ts';
import { fullSync } from '../src/sync/full-sync.ts';
import { snapshotBoth } from './support/compare-read-model.ts';
import { createTestDatabase } from './support/databases.ts';
import { createWriteStream } from 'node:fs';

describe('first load', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    const dir = await mkdtemp(path.join(tmpdir(), 'll-load-'));
    const file = path.join(dir, 'w.ndjson');
    const out = createWriteStream(file);
    await generateWorkspace({ timeEntries: 3000, seed: 3 }, out);
    await new Promise<void>((resolve) => out.end(() => resolve()));
    await importSnapshot(pool, readSnapshot(file));
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('copies a generated workspace exactly, also when tables are cut into many heap slices', async () => {
    for (const chunkPages of [undefined, 4]) {
      const readModel = await openReadModel(':memory:');
      const slices: string[] = [];
      const result = await fullSync(pool, readModel, {
        ...(chunkPages ? { chunkPages } : {}),
        onProgress: (p) => p.phase === 'copy' && slices.push(p.table),
      });
      const duck = await readModel.connect();
      const { store, readModel: copy } = await snapshotBoth(pool, duck);
      expect(copy).toEqual(store);
      expect(result.rows).toBe(Object.values(store).reduce((n, rows) => n + rows.length, 0));
      if (chunkPages) expect(slices.filter((t) => t === 'time_entries').length).toBeGreaterThan(3);
      duck.closeSync();
      readModel.close();
    }
  });
});
