import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isoDate, uuid } from '../value-schemas.ts';
import type { ReadModel } from '../readmodel/read-model.ts';
import { monthOf } from '../reports/profitability/profitability.range.ts';
import type { Plan } from '../store/schema.ts';
import { readSyncState } from '../readmodel/sync-state.ts';
import { todayIn } from '../time/calendar.ts';
import {
  changedSince,
  journalPosition,
  writeDeletedSince,
  type JournalPosition,
} from './export-journal.ts';
import {
  EXPORT_REPORT_NAMES,
  findExportReport,
  needsRange,
  type ExportParams,
  type ExportReport,
} from './export-reports.ts';
import {
  EXPORT_FORMATS,
  exportKeySelect,
  fileDigest,
  FORMAT_EXTENSION,
  moneyColumns,
  writeReportFile,
  type ExportFormat,
} from './export-writer.ts';
import { MANIFEST_FILE, MANIFEST_VERSION, type Manifest, type ManifestFile } from './manifest.ts';

/** Bad input to an export (report, format, dates, workspace): one sentence for a person. */
export class ExportInputError extends Error {}

export interface ExportRequest {
  report: ExportReport;
  format: ExportFormat;
  params: ExportParams;
}

export interface ExportInput {
  report: string;
  workspaceId: string;
  format: string;
  from?: string | undefined;
  to?: string | undefined;
}

/** An export's input checked on its own (no store needed), values normalised. */
export interface CheckedExportInput {
  report: ExportReport;
  format: ExportFormat;
  workspaceId: string;
  from: string | undefined;
  to: string | undefined;
}

/**
 * Checks an export's input: an unknown report or format, a date that is not YYYY-MM-DD, a range
 * that ends before it starts or a workspace id that is not a UUID is an ExportInputError naming
 * it, before anything is opened.
 */
export function checkExportInput(input: ExportInput): CheckedExportInput {
  const report = findExportReport(input.report);
  if (!report)
    throw new ExportInputError(
      `Unknown report ${input.report}; reports: ${EXPORT_REPORT_NAMES.join(', ')}`,
    );
  if (!(EXPORT_FORMATS as readonly string[]).includes(input.format))
    throw new ExportInputError(
      `Unknown format ${input.format}; formats: ${EXPORT_FORMATS.join(', ')}`,
    );
  for (const [name, value] of [
    ['from', input.from],
    ['to', input.to],
  ] as const) {
    if (value !== undefined && !isoDate.safeParse(value).success)
      throw new ExportInputError(`${name} must be a date (YYYY-MM-DD), not ${value}`);
  }
  if (input.from !== undefined && input.to !== undefined && input.from > input.to)
    throw new ExportInputError('from must not be after to');
  if (!uuid.safeParse(input.workspaceId).success)
    throw new ExportInputError(`${input.workspaceId} is not a workspace id (a UUID)`);
  return {
    report,
    format: input.format as ExportFormat,
    workspaceId: input.workspaceId.toLowerCase(),
    from: input.from,
    to: input.to,
  };
}

/**
 * Looks an export's workspace up in the read model (unknown: an ExportInputError) and completes
 * its parameters: its plan, and for profitability reports without a range the API's default,
 * the current month in the workspace's time zone.
 */
export async function resolveExportRequest(
  connection: DuckDBConnection,
  input: ExportInput | CheckedExportInput,
  now: Date = new Date(),
): Promise<ExportRequest> {
  const checked = isChecked(input) ? input : checkExportInput(input);
  const { report, format, workspaceId } = checked;
  const workspace = await findWorkspace(connection, workspaceId);
  if (!workspace) throw new ExportInputError(`No workspace ${workspaceId} in the read model`);
  let { from, to } = checked;
  if (needsRange(report)) {
    const month = monthOf(todayIn(workspace.timezone, now));
    from ??= month.from;
    to ??= month.to;
    if (from > to) throw new ExportInputError(`from must not be after to (${to})`);
  }
  return { report, format, params: { workspaceId, plan: workspace.plan, from, to } };
}

function isChecked(input: ExportInput | CheckedExportInput): input is CheckedExportInput {
  return typeof input.report !== 'string';
}

async function findWorkspace(
  connection: DuckDBConnection,
  id: string,
): Promise<{ plan: Plan; timezone: string } | undefined> {
  const reader = await connection.runAndReadAll(
    'SELECT plan, timezone FROM workspaces WHERE id = CAST($id AS UUID) AND deleted_at IS NULL',
    { id },
  );
  const row = reader.getRows()[0];
  return row ? { plan: row[0] as Plan, timezone: row[1] as string } : undefined;
}

export interface ExportRunOptions {
  /** The folder runs are written in; created when missing. */
  outDir: string;
  /** The run folder's name (default `<report>-<UTC time>-<random>`). */
  runName?: string;
  /** `incremental`: rows changed after `since` (null: the first run, which is full). */
  mode?: 'full' | 'incremental';
  since?: JournalPosition | null;
  schedule?: string;
  /**
   * More connections that write a large CSV or NDJSON export in parts at once (default none:
   * one COPY already keeps both cores busy; see docs/exports.md, Measured).
   */
  helpers?: number;
  /** Rows per part when written in parts (default 500,000). */
  partRows?: number;
  now?: Date;
  log?: (line: string) => void;
  /** DuckDB's estimate of how far the COPY is, in percent (default: a `log` line). */
  onProgress?: (percent: number) => void;
}

export interface ExportRunResult {
  folder: string;
  manifest: Manifest;
  /** How many COPY statements wrote the data file (parts written at once). */
  parts: number;
}

/** `20261121T083000Z`: a UTC time in a folder name. */
export function compactTime(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * One export run: the report's file (and, incremental, the deleted ids) and `manifest.json`,
 * written into `<outDir>/.tmp-<id>/` and renamed to `<outDir>/<runName>/` when complete, so a
 * run folder is always whole. Files, sums and data-as-of come from one read transaction.
 */
export async function runExport(
  readModel: ReadModel,
  request: ExportRequest,
  options: ExportRunOptions,
): Promise<ExportRunResult> {
  const connection = await readModel.connect();
  const helpers: DuckDBConnection[] = [];
  try {
    for (let i = 0; i < (options.helpers ?? 0); i++) helpers.push(await readModel.connect());
    return await runExportOn(connection, request, options, helpers);
  } finally {
    connection.closeSync();
    for (const helper of helpers) helper.closeSync();
  }
}

/** Rows per part of a CSV or NDJSON export written in parts (export-writer.ts). */
const PART_ROWS = 500_000;

/** What a read transaction sees of the read model's position: every sync commit changes it. */
async function commitSeen(connection: DuckDBConnection): Promise<string> {
  const reader = await connection.runAndReadAll(
    `SELECT CAST(synced_at AS VARCHAR), source_lsn, source_snapshot FROM sync_state`,
  );
  return JSON.stringify([reader.getRows(), await journalPosition(connection)]);
}

/**
 * Opens a read transaction on each helper and keeps those that see the same commit as `main`
 * (DuckDB has no shared snapshots: a sync commit between two BEGINs is detected and the helpers
 * try again, at most three times, else the export runs on `main` alone).
 */
async function alignHelpers(
  main: DuckDBConnection,
  helpers: DuckDBConnection[],
): Promise<DuckDBConnection[]> {
  if (helpers.length === 0) return [];
  const seen = await commitSeen(main);
  for (let attempt = 0; attempt < 3; attempt++) {
    const views: string[] = [];
    for (const helper of helpers) {
      await helper.run('BEGIN TRANSACTION');
      views.push(await commitSeen(helper));
    }
    if (views.every((v) => v === seen)) return helpers;
    for (const helper of helpers) await helper.run('ROLLBACK');
  }
  return [];
}

/** runExport on a read-model connection the caller holds (not inside a transaction). */
export async function runExportOn(
  connection: DuckDBConnection,
  request: ExportRequest,
  options: ExportRunOptions,
  helperConnections: DuckDBConnection[] = [],
): Promise<ExportRunResult> {
  const { report, format, params } = request;
  const now = options.now ?? new Date();
  const mode = options.mode ?? 'full';
  if (mode === 'incremental' && !report.journal)
    throw new ExportInputError(`${report.name} has no incremental mode (a derived report)`);
  const id = randomBytes(4).toString('hex');
  const runName = options.runName ?? `${report.name}-${compactTime(now)}-${id}`;
  await mkdir(options.outDir, { recursive: true });
  const tmp = path.join(options.outDir, `.tmp-${runName}-${id}`);
  const folder = path.join(options.outDir, runName);
  await mkdir(tmp);
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  try {
    await connection.run('BEGIN TRANSACTION');
    let manifest: Manifest;
    let helpers: DuckDBConnection[] = [];
    let parts = 1;
    try {
      const state = await readSyncState(connection);
      const position = await journalPosition(connection);
      helpers = await alignHelpers(connection, helperConnections);
      const since = options.since ?? null;
      // A run after a reload of the read model cannot tell what changed: it exports everything.
      const incremental =
        mode === 'incremental' && since !== null && since.loadId === position.loadId;
      const runMode =
        mode === 'full'
          ? 'full'
          : incremental
            ? 'incremental'
            : since === null
              ? 'full (first incremental run)'
              : 'full (read model reloaded)';
      const files: ManifestFile[] = [];
      const name = `${report.name}.${FORMAT_EXTENSION[format]}`;
      log(`export ${report.name}: writing ${name} (${runMode})`);
      const journal = report.journal;
      const written = await writeReportFile(
        connection,
        report,
        params,
        format,
        path.join(tmp, name),
        incremental && journal ? changedSince(journal, since) : undefined,
        helpers.length > 0
          ? { connections: helpers, partRows: options.partRows ?? PART_ROWS }
          : undefined,
        options.onProgress ??
          ((percent) =>
            log(
              `export ${report.name}: ${percent}% read (${((Date.now() - started) / 1000).toFixed(0)} s)`,
            )),
      );
      parts = written.parts;
      files.push({
        name,
        role: 'rows',
        format,
        ...(await fileDigest(path.join(tmp, name))),
        rows: written.rows,
        columns: report.columns.map((c) => c.name),
        moneyColumns: moneyColumns(report),
        money: written.money,
      });
      if (incremental && journal) {
        const current = exportKeySelect(report, params);
        const deletedName = `${report.name}.deleted.${FORMAT_EXTENSION[format]}`;
        const deleted = await writeDeletedSince(
          connection,
          journal,
          since,
          format,
          path.join(tmp, deletedName),
          current,
        );
        files.push({
          name: deletedName,
          role: 'deleted',
          format,
          ...(await fileDigest(path.join(tmp, deletedName))),
          rows: deleted,
          columns: ['key'],
          moneyColumns: [],
          money: {},
        });
      }
      log(
        `export ${report.name}: ${written.rows.toLocaleString('en-US')} rows${written.parts > 1 ? ` (${written.parts} parts)` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      manifest = {
        formatVersion: MANIFEST_VERSION,
        report: report.name,
        workspaceId: params.workspaceId,
        parameters: {
          report: report.name,
          format,
          from: params.from ?? null,
          to: params.to ?? null,
          mode,
          sincePosition: mode === 'incremental' ? since : null,
          schedule: options.schedule ?? null,
        },
        mode: runMode,
        dataAsOf: state?.dataAsOf.toISOString() ?? null,
        position,
        createdAt: now.toISOString(),
        rows: written.rows,
        files,
      };
    } finally {
      // Nothing was written to the read model: ROLLBACK ends the read transactions.
      await connection.run('ROLLBACK');
      for (const helper of helpers) await helper.run('ROLLBACK');
    }
    await writeFile(path.join(tmp, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    await rename(tmp, folder);
    return { folder, manifest, parts };
  } catch (error) {
    await rm(tmp, { recursive: true, force: true });
    throw error;
  }
}
