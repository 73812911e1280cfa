import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExportReport } from '../../src/exports/export-reports.ts';
import { MANIFEST_FILE, readManifest, verifyManifest } from '../../src/exports/manifest.ts';
import { ExportScheduler, parseSchedules } from '../../src/exports/schedules.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { createTestDatabase, dropIdleSlots } from '../support/databases.ts';
import { readExportFile } from '../support/export-files.ts';
import { importObject } from '../support/import-object.ts';
import { restrictedRoleUrl } from '../support/restricted-role.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/**
 * Incremental schedules take only the rows changed since their previous run, from the export
 * journal the sync writes with the rows, and list the keys that left the export; in both sync
 * modes (logical replication, and the change log of a store that cannot replicate).
 */
describe.each(['replication', 'change-log'] as const)('incremental exports (%s)', (mode) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let readModel: ReadModel;
  let sync: SyncService;
  let out: string;
  let clock = new Date('2026-11-21T10:30:00Z');
  let scheduler: ExportScheduler;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = mode === 'replication' ? database.url : await restrictedRoleUrl(database.url);
    pool = createPool(url);
    await importObject(pool, smallSnapshot());
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    const status = new ReadModelStatus();
    sync = new SyncService({ pool, url, readModel, derived: DERIVED_TABLES, status });
    await sync.start();
    expect(sync.metrics.mode).toBe(mode === 'replication' ? 'replication' : 'change-log');
    out = await mkdtemp(path.join(tmpdir(), `ll-incremental-${mode}-`));
    const schedule = (id: string, report: string, format: string) => ({
      id,
      workspaceId: ids.workspace,
      report,
      format,
      cron: '0 * * * *',
      out: '.',
      mode: 'incremental',
    });
    scheduler = new ExportScheduler({
      readModel,
      pool,
      node: 'node_a',
      status,
      now: () => clock,
      schedules: parseSchedules(
        [
          schedule('inv', 'invoices', 'csv'),
          schedule('te', 'time-entries', 'ndjson'),
          schedule('bills', 'bills', 'parquet'),
        ],
        out,
      ),
    });
    await scheduler.start();
  });
  afterAll(async () => {
    await scheduler.stop();
    await sync.stop();
    if (mode === 'replication') await dropIdleSlots(pool);
    readModel.close();
    await pool.end();
    await database.drop();
    await rm(out, { recursive: true, force: true });
  });

  /** Runs what is due at `iso`, and reads each schedule's run of that time. */
  const runAt = async (iso: string) => {
    clock = new Date(iso);
    await scheduler.runDue();
    const stamp = iso.slice(0, 13).replace(/-/g, '') + '0000Z';
    const run = async (id: string, report: string) => {
      const folder = path.join(out, `${id}-${stamp}`);
      const manifest = await readManifest(path.join(folder, MANIFEST_FILE));
      expect(await verifyManifest(path.join(folder, MANIFEST_FILE)), id).toEqual([]);
      const [rowsFile, deletedFile] = manifest.files;
      const rows = await readExportFile(
        path.join(folder, rowsFile!.name),
        rowsFile!.format,
        findExportReport(report)!,
      );
      const deletedKeys = deletedFile
        ? (await readFile(path.join(folder, deletedFile.name), 'utf8'))
            .split('\n')
            .filter((line) => line !== '' && line !== 'key')
            .map((line) =>
              deletedFile.format === 'ndjson' ? (JSON.parse(line) as { key: string }).key : line,
            )
        : [];
      return { manifest, rows, deleted: deletedFile, deletedKeys };
    };
    return {
      inv: await run('inv', 'invoices'),
      te: await run('te', 'time-entries'),
      bills: await run('bills', 'bills'),
    };
  };

  it('exports everything first, then only what changed, with deletions listed', async () => {
    const first = await runAt('2026-11-21T11:00:30Z');
    expect(first.inv.manifest.mode).toBe('full (first incremental run)');
    expect(first.te.rows.map((r) => r.id).sort()).toEqual([ids.entry1, ids.entry2]);

    await pool.query(
      "UPDATE invoices SET amount_paid = total, payment_status = 'paid', updated_at = now() WHERE id = $1",
      [ids.invoice],
    );
    await pool.query("UPDATE time_entries SET note = 'Wireframes v2' WHERE id = $1", [ids.entry1]);
    await pool.query('DELETE FROM time_entries WHERE id = $1', [ids.entry2]);
    // A reversed payment changes its bill's figures, though no bill row changed.
    await pool.query(
      "UPDATE team_payments SET status = 'REVERSED', reversed_at = now(), reversal_reason = 'Bounced' WHERE id = $1",
      [ids.payment],
    );
    await sync.waitForStore();

    const second = await runAt('2026-11-21T12:00:30Z');
    expect(second.inv.manifest.mode).toBe('incremental');
    expect(second.inv.manifest.parameters.sincePosition).toEqual(first.inv.manifest.position);
    expect(second.inv.rows).toMatchObject([{ id: ids.invoice, amountPaid: '192.78' }]);
    expect(second.inv.deleted).toMatchObject({ role: 'deleted', rows: 0 });
    expect(second.te.rows).toMatchObject([{ id: ids.entry1, note: 'Wireframes v2' }]);
    expect(second.te.deleted).toMatchObject({ name: 'time-entries.deleted.ndjson', rows: 1 });
    expect(second.te.deletedKeys).toEqual([ids.entry2]);
    expect(second.bills.rows).toHaveLength(1);
    expect(second.bills.rows[0]).toMatchObject({
      id: ids.bill,
      paymentStatus: 'UNPAID',
      amountPaid: '0.0000', // Parquet keeps DuckDB's DECIMAL (38,4: a sum of allocations)
    });

    // A soft delete leaves the export: listed as deleted. Nothing else changed.
    await pool.query('UPDATE invoices SET deleted_at = now() WHERE id = $1', [ids.invoice]);
    await sync.waitForStore();
    const third = await runAt('2026-11-21T13:00:30Z');
    expect(third.inv.rows).toEqual([]);
    expect(third.inv.deleted?.rows).toBe(1);
    expect(third.inv.deletedKeys).toEqual([ids.invoice]);
    expect(third.te.rows).toEqual([]);
    expect(third.te.deleted?.rows).toBe(0);
    expect(third.bills.rows).toEqual([]);
  });
});
