import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withProgress } from '../../src/exports/export-writer.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/** A long COPY says how far it is: DuckDB's own estimate, read while the statement runs. */
describe('export progress', () => {
  let readModel: ReadModel;
  let dir: string;
  beforeAll(async () => {
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    dir = await mkdtemp(path.join(tmpdir(), 'll-progress-'));
  });
  afterAll(async () => {
    readModel.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports rising percentages while a COPY runs, and none after it', async () => {
    const duck = await readModel.connect();
    try {
      await duck.run(
        'CREATE TABLE progress_rows AS SELECT i, i * 7 AS j, md5(CAST(i AS VARCHAR)) AS k FROM range(12000000) t(i)',
      );
      const seen: number[] = [];
      const rows = await withProgress(
        duck,
        async () =>
          (
            await duck.runAndReadAll(
              `COPY (SELECT * FROM progress_rows) TO '${path.join(dir, 'rows.csv')}' (FORMAT csv)`,
            )
          ).getRows()[0]![0],
        (percent) => seen.push(percent),
        20,
      );
      expect(rows).toBe(12_000_000n);
      expect(seen.length).toBeGreaterThan(0);
      for (const percent of seen) {
        expect(percent).toBeGreaterThanOrEqual(0);
        expect(percent).toBeLessThanOrEqual(100);
      }
      expect([...seen].sort((a, b) => a - b)).toEqual(seen);
      const after = seen.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toHaveLength(after);
    } finally {
      duck.closeSync();
    }
  }, 120_000);
});
