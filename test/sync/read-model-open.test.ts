import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { openReadModel } from '../../src/readmodel/read-model.ts';

/**
 * Opening a read model makes its macros, views and currencies only when it does not hold this
 * code's (docs/sync.md, "Start-up"): a server's start after a crash replays every write of the
 * opens before it, and each open used to write them all again.
 */
describe('opening a read model file', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'll-read-model-open-'));
    file = path.join(dir, 'read-model.duckdb');
    (await openReadModel(file, READ_MODEL_PARTS)).close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Opens the file, runs `statements` on it (as other code would), closes it. */
  const alter = async (...statements: string[]) => {
    const readModel = await openReadModel(file, READ_MODEL_PARTS);
    const duck = await readModel.connect();
    for (const statement of statements) await duck.run(statement);
    duck.closeSync();
    readModel.close();
  };
  /** Opens the file and reads `query` from it. */
  const readAfterOpen = async (query: string) => {
    const readModel = await openReadModel(file, READ_MODEL_PARTS);
    const duck = await readModel.connect();
    const rows = (await duck.runAndReadAll(query)).getRows();
    duck.closeSync();
    readModel.close();
    return rows;
  };
  const currencyKey =
    "SELECT macro_definition FROM duckdb_functions() WHERE function_name = 'currency_key'";

  it('writes nothing when it holds this code’s definitions', async () => {
    const readModel = await openReadModel(file, READ_MODEL_PARTS);
    const wal = `${file}.wal`;
    const written = existsSync(wal) ? statSync(wal).size : 0;
    readModel.close();
    expect(written).toBe(0);
  });

  it('makes a macro anew that other code made again', async () => {
    const ours = await readAfterOpen(currencyKey);
    await alter('CREATE OR REPLACE MACRO currency_key(code) AS 1');
    expect(await readAfterOpen(currencyKey)).toEqual(ours);
  });

  it('seeds the currencies again when they are not this code’s', async () => {
    await alter("DELETE FROM currencies WHERE code = 'EUR'");
    expect(await readAfterOpen("SELECT scale FROM currencies WHERE code = 'EUR'")).toEqual([[2]]);
  });

  it('makes the views again with tables made anew', async () => {
    const views =
      "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'";
    const before = await readAfterOpen(views);
    expect(before.length).toBeGreaterThan(0);
    // As a file made by another version of the tables: dropped and made anew at the next open.
    await alter("UPDATE read_model_meta SET tables_sha256 = 'another version'");
    expect(await readAfterOpen(views)).toEqual(before);
  });
});
