import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { openReadModel } from '../../src/readmodel/read-model.ts';
import { readTagged, taggedSql } from '../../src/readmodel/tagged-rows.ts';
import { importSnapshot } from '../../src/snapshot/import.ts';
import { readSnapshot } from '../../src/snapshot/read-snapshot.ts';
import { generateWorkspace } from '../../src/snapshot/generate.ts';
import { createPool } from '../../src/store/database.ts';
import { fullSync, readModelTables } from '../../src/sync/full-sync.ts';
import { snapshotBoth } from '../support/compare-read-model.ts';
import { createTestDatabase } from '../support/databases.ts';
import { createWriteStream } from 'node:fs';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

describe('first load', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    dir = await mkdtemp(path.join(tmpdir(), 'll-load-'));
    const file = path.join(dir, 'w.ndjson');
    const out = createWriteStream(file);
    await generateWorkspace({ timeEntries: 3000, seed: 3 }, out);
    await new Promise<void>((resolve) => out.end(() => resolve()));
    await importSnapshot(pool, readSnapshot(file));
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies a generated workspace exactly, also when tables are cut into many heap slices', async () => {
    for (const chunkPages of [undefined, 4]) {
      const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
      const slices: string[] = [];
      const result = await fullSync(pool, readModel, DERIVED_TABLES, {
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

  it('copies every column PostgreSQL has, in its order, and derives the client names on projects and invoices', async () => {
    const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    await fullSync(pool, readModel, DERIVED_TABLES);
    const duck = await readModel.connect();
    try {
      for (const [table, columns] of await readModelTables(duck, DERIVED_TABLES)) {
        const { rows } = await pool.query<{ name: string }>(
          `SELECT column_name AS name FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
          [table],
        );
        expect(
          columns.map((c) => c.name),
          table,
        ).toEqual(rows.map((r) => r.name));
      }
      for (const table of ['projects', 'invoices']) {
        const reader = await duck.runAndReadAll(
          `SELECT count(*), count(r.client_name_lower),
             count(*) FILTER (WHERE r.client_name_lower IS DISTINCT FROM lower(c.name))
           FROM ${table} r LEFT JOIN clients c ON c.id = r.client_id`,
        );
        const [rows, named, off] = reader.getRows()[0]!.map(Number);
        expect(rows, table).toBeGreaterThan(0);
        expect(named, table).toBeGreaterThan(0);
        expect(off, table).toBe(0);
      }
    } finally {
      duck.closeSync();
      readModel.close();
    }
  });

  it('builds the indexes anew after replacing every row, and the keyed reads of the refreshes use them', async () => {
    const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    const duck = await readModel.connect();
    const indexes = async () =>
      (
        await duck.runAndReadAll(
          'SELECT table_name, index_name FROM duckdb_indexes() ORDER BY table_name, index_name',
        )
      )
        .getRows()
        .map((row) => row.join('.'));
    const expected = [
      'clients.clients_id',
      'invoice_lines.invoice_lines_entry',
      'invoices.invoices_id',
      'payee_entry_pay.payee_entry_pay_entry',
      'profitability_facts.profitability_facts_entry',
      'projects.projects_id',
      'team_bill_lines.team_bill_lines_entry',
      'time_entries.time_entries_id',
    ];
    try {
      expect(await indexes()).toEqual(expected);
      // A second load replaces every row of a read model that has them: dropped, then built.
      for (let load = 0; load < 2; load++) {
        await fullSync(pool, readModel, DERIVED_TABLES);
        expect(await indexes()).toEqual(expected);
      }
      const { store, readModel: copy } = await snapshotBoth(pool, duck);
      expect(copy).toEqual(store);

      const ids = (await duck.runAndReadAll('SELECT id FROM time_entries LIMIT 2'))
        .getRows()
        .map(([id]) => `'${String(id)}'::UUID`)
        .join(', ');
      const text = taggedSql(
        [['e', ['id'], 'FROM entries WHERE deleted_at IS NULL AND NOT is_running']],
        [{ name: 'entries', table: 'time_entries', column: 'id', keys: ids }],
      );
      const plan = (await duck.runAndReadAll(`EXPLAIN ANALYZE ${text}`)).getRows()[0]![1];
      expect(String(plan)).toContain('Index Scan');
      expect((await readTagged(duck, text)).get('e')).toHaveLength(2);
    } finally {
      duck.closeSync();
      readModel.close();
    }
  });

  it('removes the slice folders of loads whose process was killed, and only those', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'll-stale-'));
    try {
      // A process that has ended: its pid names a load that will never remove its folder.
      const ended = spawn(process.execPath, ['-e', '']);
      await once(ended, 'exit');
      const folders = {
        killed: `ledgerline-sync-${ended.pid}-a1b2c3`,
        running: `ledgerline-sync-${process.ppid}-d4e5f6`,
        unnamed: 'ledgerline-sync-g7h8i9',
        other: 'll-something-else',
      };
      for (const name of Object.values(folders)) {
        await mkdir(path.join(parent, name));
        await writeFile(path.join(parent, name, '0.csv'), 'a,b\n');
      }
      const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
      await fullSync(pool, readModel, DERIVED_TABLES, { tmpDir: parent });
      readModel.close();
      // The killed load's folder is gone, and this load removed its own.
      expect((await readdir(parent)).sort()).toEqual(
        [folders.running, folders.unnamed, folders.other].sort(),
      );
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
