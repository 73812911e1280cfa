import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { z } from 'zod';
import { csvBufferOptions } from '../readmodel/csv-line-limit.ts';
import {
  EXPORT_FORMATS,
  fileDigest,
  quoteName,
  sumMoney,
  type ExportFormat,
  type MoneyColumn,
  type MoneySums,
} from './export-writer.ts';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_VERSION = 1;

const moneySums = z.record(z.string(), z.record(z.string(), z.string()));

const manifestFile = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a plain file name in the run folder'),
  /** `rows`: the report's rows; `deleted`: ids deleted since the previous run (incremental). */
  role: z.enum(['rows', 'deleted']),
  format: z.enum(EXPORT_FORMATS),
  bytes: z.int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z.int().nonnegative(),
  columns: z.array(z.string()),
  moneyColumns: z.array(z.object({ column: z.string(), currencyColumn: z.string() })),
  /** Per money column, per currency, the exact sum of the file's values. */
  money: moneySums,
});
export type ManifestFile = z.infer<typeof manifestFile>;

/** Where the sync's change journal stood when a run read it (docs/exports.md, incremental). */
const journalPosition = z.object({ loadId: z.string(), changeNo: z.int().nonnegative() });
export type JournalPosition = z.infer<typeof journalPosition>;

export const manifestSchema = z.object({
  formatVersion: z.literal(MANIFEST_VERSION),
  report: z.string(),
  workspaceId: z.string(),
  parameters: z.object({
    report: z.string(),
    format: z.enum(EXPORT_FORMATS),
    from: z.string().nullable(),
    to: z.string().nullable(),
    mode: z.enum(['full', 'incremental']),
    /** Incremental: the journal position of the previous run, rows changed after it. */
    sincePosition: journalPosition.nullable(),
    schedule: z.string().nullable(),
  }),
  /** What the run did: `full`, `incremental`, or `full (read model reloaded)`. */
  mode: z.string(),
  /** The commit time of the newest operational change the read model reflected. */
  dataAsOf: z.string().nullable(),
  /** The journal position this run read at (the next incremental run starts after it). */
  position: journalPosition.nullable(),
  createdAt: z.string(),
  rows: z.int().nonnegative(),
  files: z.array(manifestFile),
});
export type Manifest = z.infer<typeof manifestSchema>;

/**
 * How DuckDB reads an export file back, every column as text (money included) or, for
 * Parquet, its stored type. The dialect is the writer's (COPY_OPTIONS), named whole: DuckDB's
 * sniffer would guess it from the first rows, and a file whose first 20,480 rows need no
 * quoting was read with no quote character.
 */
function readBack(format: ExportFormat, columns: string[], fileBytes: number): string {
  // Every column as text: DuckDB would otherwise take ISO strings for timestamps.
  const types = columns.map((c) => `${quoteName(c).replace(/"/g, "'")}: 'VARCHAR'`).join(', ');
  switch (format) {
    case 'csv':
      return `read_csv($file, auto_detect = false, header = true, delim = ',', quote = '"', escape = '"', new_line = '\\n', nullstr = '', allow_quoted_nulls = false, encoding = 'utf-8', ${csvBufferOptions(fileBytes)}, columns = {${types}})`;
    case 'ndjson':
      return `read_json($file, auto_detect = false, format = 'newline_delimited', records = true, columns = {${types}})`;
    case 'parquet':
      return 'read_parquet($file)';
  }
}

/** Row count and money sums of an export file, recomputed from its contents. */
export async function measureFile(
  file: string,
  format: ExportFormat,
  allColumns: string[],
  columns: MoneyColumn[],
): Promise<{ rows: number; money: MoneySums; invalid: Record<string, number> }> {
  // An NDJSON export of no rows is an empty file, which DuckDB's JSON reader cannot type.
  const { size } = await stat(file);
  if (size === 0) {
    return {
      rows: 0,
      money: Object.fromEntries(columns.map((c) => [c.column, {}])),
      invalid: {},
    };
  }
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  try {
    const source = readBack(format, allColumns, size);
    const values = { file };
    const counted = await connection.runAndReadAll(`SELECT count(*) FROM ${source}`, values);
    const rows = Number(counted.getRows()[0]![0]);
    const { sums, invalid } = await sumMoney(connection, source, values, columns);
    return { rows, money: sums, invalid };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Reads and checks a manifest file; a clear error when it is not one. */
export async function readManifest(file: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new Error(`Cannot read ${file}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${file} is not an export manifest: ${issue?.path.join('.') || 'document'} ${issue?.message ?? ''}`.trim(),
    );
  }
  return parsed.data;
}

/**
 * Recomputes everything a manifest states about its files (size, SHA-256, rows, money sums per
 * currency) from the files beside it, and returns each difference as one line naming it; an
 * empty list when all agree.
 */
export async function verifyManifest(manifestPath: string): Promise<string[]> {
  const manifest = await readManifest(manifestPath);
  const dir = path.dirname(manifestPath);
  const differences: string[] = [];
  let dataRows = 0;
  for (const entry of manifest.files) {
    const file = path.join(dir, entry.name);
    const digest = await fileDigest(file).catch(() => undefined);
    if (!digest) {
      differences.push(`${entry.name}: missing`);
      continue;
    }
    if (digest.bytes !== entry.bytes)
      differences.push(`${entry.name}: bytes: manifest ${entry.bytes}, file ${digest.bytes}`);
    if (digest.sha256 !== entry.sha256) differences.push(`${entry.name}: sha256 differs`);
    let measured: Awaited<ReturnType<typeof measureFile>>;
    try {
      measured = await measureFile(file, entry.format, entry.columns, entry.moneyColumns);
    } catch (error) {
      differences.push(
        `${entry.name}: cannot be read as ${entry.format} (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      );
      continue;
    }
    if (entry.role === 'rows') dataRows += measured.rows;
    if (measured.rows !== entry.rows)
      differences.push(`${entry.name}: rows: manifest ${entry.rows}, file ${measured.rows}`);
    for (const { column } of entry.moneyColumns) {
      const stated = entry.money[column] ?? {};
      const found = measured.money[column] ?? {};
      if ((measured.invalid[column] ?? 0) > 0)
        differences.push(
          `${entry.name}: ${column}: ${measured.invalid[column]} values are not decimals`,
        );
      for (const currency of [...new Set([...Object.keys(stated), ...Object.keys(found)])].sort()) {
        if (stated[currency] !== found[currency])
          differences.push(
            `${entry.name}: ${column} ${currency}: manifest ${stated[currency] ?? '-'}, file ${found[currency] ?? '-'}`,
          );
      }
    }
  }
  const statedRows = manifest.files
    .filter((f) => f.role === 'rows')
    .reduce((n, f) => n + f.rows, 0);
  if (manifest.rows !== statedRows)
    differences.push(`rows: manifest ${manifest.rows}, files ${statedRows}`);
  else if (manifest.rows !== dataRows && differences.length === 0)
    differences.push(`rows: manifest ${manifest.rows}, file ${dataRows}`);
  return differences;
}
