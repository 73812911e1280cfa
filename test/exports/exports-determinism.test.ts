import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveExportRequest, runExport } from '../../src/exports/export-run.ts';
import { findExportReport } from '../../src/exports/export-reports.ts';
import type { ExportFormat } from '../../src/exports/export-writer.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { fullSync } from '../../src/sync/full-sync.ts';
import { readExportFile } from '../support/export-files.ts';
import { generatedWorkspace, type GeneratedWorkspace } from '../support/generated-workspaces.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

const LONG = 600_000;
/** More than DuckDB's row group (122,880 rows), so a parallel writer could reorder them. */
const ENTRIES = 130_000;

/**
 * The same data and parameters give byte-identical CSV and NDJSON: twice from one read model,
 * and from a second read model loaded afresh from the same store. The rows come out in the
 * report's order (entry date, then id) across row groups, although the read model runs with
 * preserve_insertion_order off.
 */
describe('exports are deterministic', () => {
  let h: Harness;
  let ws: GeneratedWorkspace;
  let out: string;
  let rebuilt: ReadModel;
  beforeAll(async () => {
    h = await createHarness();
    ws = await generatedWorkspace(h.pool, { seed: 21, timeEntries: ENTRIES, members: 12 });
    await h.sync();
    rebuilt = await openReadModel(':memory:', READ_MODEL_PARTS);
    await fullSync(h.pool, rebuilt, DERIVED_TABLES);
    out = await mkdtemp(path.join(tmpdir(), 'll-exports-det-'));
  }, LONG);
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
    rebuilt.close();
    await h.close();
  });

  const exportBytes = async (
    readModel: ReadModel,
    report: string,
    format: ExportFormat,
    options: { partRows?: number; helpers?: number } = {},
  ) => {
    const duck = await readModel.connect();
    const request = await resolveExportRequest(duck, {
      report,
      workspaceId: ws.id,
      format,
      // The generated workspace's month (its today is 2026-11-15), not the clock's: the default
      // range is the current month, which from December on holds no generated entry.
      ...(report.startsWith('profitability') ? { from: '2026-11-01', to: '2026-11-30' } : {}),
    }).finally(() => duck.closeSync());
    const { folder, manifest, parts } = await runExport(readModel, request, {
      outDir: out,
      ...options,
    });
    const file = path.join(folder, manifest.files[0]!.name);
    return {
      file,
      bytes: await readFile(file),
      sha256: manifest.files[0]!.sha256,
      rows: manifest.rows,
      parts,
    };
  };

  for (const format of ['csv', 'ndjson'] as const) {
    it(
      `time entries as ${format}: identical bytes, in report order over several row groups`,
      async () => {
        const first = await exportBytes(h.readModel, 'time-entries', format);
        const second = await exportBytes(h.readModel, 'time-entries', format);
        const other = await exportBytes(rebuilt, 'time-entries', format);
        // One COPY, and parts of 20,000 rows written by two connections at once and joined.
        const single = await exportBytes(h.readModel, 'time-entries', format);
        const parted = await exportBytes(h.readModel, 'time-entries', format, {
          helpers: 1,
          partRows: 20_000,
        });
        expect(single.parts).toBe(1);
        expect(parted.parts).toBeGreaterThan(5);
        expect(single.bytes.equals(first.bytes)).toBe(true);
        expect(parted.bytes.equals(first.bytes)).toBe(true);
        // The live entries (the generator deletes a few), over more than one row group.
        expect(first.rows).toBeGreaterThan(122_880);
        expect(second.bytes.equals(first.bytes)).toBe(true);
        expect(other.bytes.equals(first.bytes)).toBe(true);
        expect(other.sha256).toBe(first.sha256);

        // Read back in file order (a DuckDB reader keeps it by default), quoting and all.
        const rows = await readExportFile(first.file, format, findExportReport('time-entries')!);
        const keys = rows.map((row) => `${row.entryDate} ${row.id}`);
        expect(keys).toHaveLength(first.rows);
        const outOfOrder = keys.filter((key, i) => i > 0 && keys[i - 1]! > key).length;
        expect(outOfOrder).toBe(0);
      },
      LONG,
    );
  }

  it(
    'time entries as Parquet: the same rows from either read model, in no promised order',
    async () => {
      const report = findExportReport('time-entries')!;
      const first = await exportBytes(h.readModel, 'time-entries', 'parquet');
      const other = await exportBytes(rebuilt, 'time-entries', 'parquet');
      expect(first.rows).toBeGreaterThan(122_880);
      expect(other.rows).toBe(first.rows);
      const rowSet = async (file: string) =>
        (await readExportFile(file, 'parquet', report)).map((row) => JSON.stringify(row)).sort();
      const rows = await rowSet(first.file);
      expect(rows).toHaveLength(first.rows);
      expect(new Set(rows.map((row) => (JSON.parse(row) as { id: string }).id)).size).toBe(
        first.rows,
      );
      expect(await rowSet(other.file)).toEqual(rows);
    },
    LONG,
  );

  it(
    'every other report as CSV and NDJSON from the rebuilt read model: identical bytes',
    async () => {
      for (const report of [
        'invoices',
        'bills',
        'bill-lines',
        'payments',
        'allocations',
        'unpaid-time',
        'profitability-members',
        'profitability-projects',
      ]) {
        for (const format of ['csv', 'ndjson'] as const) {
          const first = await exportBytes(h.readModel, report, format);
          // Written in parts where the report has a partition key (payments, unpaid time).
          const other = await exportBytes(rebuilt, report, format, {
            helpers: 1,
            partRows: 1_000,
          });
          expect(first.rows, `${report} has rows`).toBeGreaterThan(0);
          expect(other.bytes.equals(first.bytes), `${report} ${format}`).toBe(true);
        }
      }
    },
    LONG,
  );
});
