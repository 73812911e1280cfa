import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import {
  sql,
  type CompiledQuery,
  type Expression,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
import { runCompiled } from '../readmodel/query-builder.ts';
import { exportQueries } from './export-db.ts';
import { currencyScale } from '../money/currencies.ts';
import { Money } from '../money/money.ts';
import type { ExportColumn } from './export-columns.ts';
import type { ExportParams, ExportReport, ReportRows } from './export-reports.ts';

export const EXPORT_FORMATS = ['csv', 'ndjson', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const FORMAT_EXTENSION: Record<ExportFormat, string> = {
  csv: 'csv',
  ndjson: 'ndjson',
  parquet: 'parquet',
};

export const FORMAT_CONTENT_TYPE: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/** DuckDB's own writer for each format; CSV and NDJSON carry only text, integers and booleans. */
export const COPY_OPTIONS: Record<ExportFormat, string> = {
  csv: "FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"', ESCAPE '\"', NEW_LINE '\\n'",
  ndjson: 'FORMAT json',
  // Snappy (DuckDB's default): on the 10M time entries 4.8 s against zstd's 5.7 s, for a
  // file 5% larger (284 MB against 271 MB).
  parquet: "FORMAT parquet, COMPRESSION 'snappy'",
};

/**
 * A column as written: in CSV and NDJSON every value is text the API would answer (money at its
 * currency's scale, ISO dates and UTC timestamps) or an integer or boolean, so the bytes depend on
 * the data only; Parquet keeps DuckDB's types (DECIMAL money, DATE, TIMESTAMPTZ, UUID).
 */
function columnSql(column: ExportColumn, format: ExportFormat): string {
  const { sql, currency = 'NULL' } = column;
  // Parquet keeps DuckDB's types, UUIDs too (Parquet's UUID type): written as text they took
  // twice as long on the time entries (docs/exports.md, Measured).
  if (format === 'parquet') return sql;
  switch (column.kind) {
    case 'uuid':
    case 'date':
    case 'fixed':
      return `CAST(${sql} AS VARCHAR)`;
    case 'text':
    case 'integer':
    case 'boolean':
      return sql;
    case 'timestamp':
      return `iso_timestamp(${sql})`;
    case 'money':
      return `money_text(${sql}, ${currency})`;
    case 'rate':
      return `rate_text(${sql}, ${currency})`;
    case 'decimal':
      return `decimal_text(${sql})`;
    case 'names':
      return `array_to_string(${sql}, ';')`;
  }
}

/** A condition on the report's rows (an incremental run's, a part's), over its FROM. */
export type RowFilter = Expression<SqlBool>;

/** The report's SELECT in a format: its columns over its rows, the filters applied. */
export function exportSelect(
  report: ExportReport,
  p: ExportParams,
  format: ExportFormat,
  options: { ordered: boolean; filters?: RowFilter[] } = { ordered: true },
): ReportRows {
  const columns = report.columns.map((c) => sql.raw(columnSql(c, format)).as(c.name));
  const rows = filtered(report.source(p), options.filters).select(columns);
  return options.ordered ? rows.orderBy(sql.raw(report.orderBy)) : rows;
}

function filtered(rows: ReportRows, filters: RowFilter[] = []): ReportRows {
  return filters.reduce((q, filter) => q.where(filter), rows);
}

/** The journal keys of a report's rows, one `export_key` column. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KeyRows = SelectQueryBuilder<any, any, { export_key: string }>;

/** The journal keys of the report's rows as they are now (`export_key`), for deletions. */
export function exportKeySelect(report: ExportReport, p: ExportParams): KeyRows {
  if (!report.journal) throw new Error(`${report.name} has no journal`);
  return report.source(p).select(sql.raw<string>(report.journal.key).as('export_key'));
}

/** `COPY (rows) TO file (options)`, every value bound (a query in `sql` gets its parentheses). */
export function copyStatement(
  rows: ReportRows | KeyRows,
  file: string,
  options: string,
): CompiledQuery {
  return sql`COPY ${rows} TO ${file} (${sql.raw(options)})`.compile(exportQueries);
}

/** A money column and the column holding its currency (both by their export names). */
export interface MoneyColumn {
  column: string;
  currencyColumn: string;
}

/** The money columns of a report, each with the column of its currency. */
export function moneyColumns(report: ExportReport): MoneyColumn[] {
  return report.columns
    .filter((c) => c.kind === 'money')
    .map((c) => {
      const currency = report.columns.find((o) => o.kind === 'text' && o.sql === c.currency);
      if (!currency) throw new Error(`${report.name}.${c.name} has no currency column`);
      return { column: c.name, currencyColumn: currency.name };
    });
}

/** Per money column, per currency: the exact sum as text (see sumText). */
export type MoneySums = Record<string, Record<string, string>>;

/** The key of rows whose currency is NULL (only money values that are NULL too, in practice). */
export const NO_CURRENCY = '(none)';

/**
 * The sums per currency of `columns` over `source` (a FROM item whose columns have the export
 * names), in DECIMAL arithmetic, plus how many values are not decimals. Used on the export's
 * SELECT when writing and on the file when verifying, so both sides compute alike.
 */
export async function sumMoney(
  connection: DuckDBConnection,
  source: string,
  values: Record<string, DuckDBValue> | readonly DuckDBValue[],
  columns: MoneyColumn[],
): Promise<{ sums: MoneySums; invalid: Record<string, number> }> {
  const sums: MoneySums = {};
  const invalid: Record<string, number> = {};
  for (const { column, currencyColumn } of columns) {
    const c = quoteName(column);
    const reader = await connection.runAndReadAll(
      `SELECT coalesce(CAST(${quoteName(currencyColumn)} AS VARCHAR), '${NO_CURRENCY}'),
         CAST(sum(TRY_CAST(${c} AS DECIMAL(38, 4))) AS VARCHAR),
         count(${c}) - count(TRY_CAST(${c} AS DECIMAL(38, 4)))
       FROM ${source} GROUP BY 1 ORDER BY 1`,
      values as DuckDBValue[],
    );
    const perCurrency: Record<string, string> = {};
    let bad = 0;
    for (const [currency, sum, notDecimal] of reader.getRows() as [
      string,
      string | null,
      bigint,
    ][]) {
      if (sum !== null) perCurrency[currency] = sumText(sum, currency);
      bad += Number(notDecimal);
    }
    sums[column] = perCurrency;
    invalid[column] = bad;
  }
  return { sums, invalid };
}

/** A sum as exact text: the currency's scale, or more decimals when the sum has them. */
export function sumText(decimal: string, currency: string): string {
  const value = new Money(decimal);
  const scale = Math.max(currencyScale(currency) ?? 2, value.decimalPlaces());
  return (value.isZero() ? new Money(0) : value).toFixed(scale);
}

/** A column name quoted as an identifier; names come from the report definitions or a manifest. */
export function quoteName(name: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) throw new Error(`Not a column name: ${name}`);
  return `"${name}"`;
}

export interface WrittenFile {
  rows: number;
  money: MoneySums;
  /** How many COPY statements wrote the file (more than one: parts written in parallel). */
  parts: number;
}

/**
 * More read-model connections whose transactions see the same data as the writer's own (see
 * export-run.ts), for writing a large CSV or NDJSON export in parts at once.
 */
/**
 * Reports DuckDB's progress of the statement `connection` runs while `work` is pending: every
 * `everyMs`, the percentage DuckDB estimates (of the rows its scans have read; it stays put
 * while a sort runs). Progress tracking is switched on for this connection only (the setting
 * is per connection) and printed nowhere by DuckDB itself.
 */
export async function withProgress<T>(
  connection: DuckDBConnection,
  work: () => Promise<T>,
  report: (percent: number) => void,
  everyMs = PROGRESS_EVERY_MS,
): Promise<T> {
  await connection.run('SET enable_progress_bar = true');
  await connection.run('SET enable_progress_bar_print = false');
  let last = -1;
  const timer = setInterval(() => {
    const { percentage } = connection.progress;
    // -1: no statement is being tracked (yet, or any more).
    if (percentage < 0) return;
    const percent = Math.floor(percentage);
    if (percent === last) return;
    last = percent;
    report(percent);
  }, everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** How often a long export says how far it is. */
export const PROGRESS_EVERY_MS = 5_000;

export interface Helpers {
  connections: DuckDBConnection[];
  /** Rows per part (about). */
  partRows: number;
}

/**
 * Writes `report` in `format` to `file` with DuckDB's COPY, and sums its money columns over the
 * same SELECT. Call inside a read transaction so file and sums see the same data. A CSV or
 * NDJSON COPY keeps the ORDER BY: DuckDB preserves the order of an ordered query even with
 * preserve_insertion_order off (test/exports/exports-determinism.test.ts checks it over several row
 * groups). Parquet is written unordered (ORDERED).
 *
 * With helpers, a CSV or NDJSON export of a report with a partition key is cut into parts by
 * ranges of that key (the first key of its order, so the parts' rows follow each other) that
 * the connections write at once, each sorting only its part; the parts are then joined in
 * order. The bytes are the same as one COPY's: each line depends on its row only.
 */
export async function writeReportFile(
  connection: DuckDBConnection,
  report: ExportReport,
  p: ExportParams,
  format: ExportFormat,
  file: string,
  filter?: RowFilter,
  helpers?: Helpers,
  onProgress?: (percent: number) => void,
): Promise<WrittenFile> {
  await report.prepare?.(connection, p);
  const parts =
    helpers && format !== 'parquet' && report.partitionKey
      ? await partRanges(connection, report, p, filter, helpers.partRows)
      : [];
  let rows: number;
  if (parts.length > 1) {
    rows = await copyParts(
      [connection, ...helpers!.connections],
      report,
      p,
      format,
      file,
      filter,
      parts,
    );
  } else {
    const write = () =>
      copy(connection, report, p, format, file, { header: true, filters: filter ? [filter] : [] });
    rows = onProgress ? await withProgress(connection, write, onProgress) : await write();
  }
  const unordered = exportSelect(report, p, format, {
    ordered: false,
    filters: filter ? [filter] : [],
  }).compile();
  const { sums } = await sumMoney(
    connection,
    `(${unordered.sql})`,
    unordered.parameters as DuckDBValue[],
    moneyColumns(report),
  );
  return { rows, money: sums, parts: Math.max(parts.length, 1) };
}

/**
 * Whether a format's rows are written in the report's order. CSV and NDJSON are: their bytes
 * are promised identical for the same data. Parquet is not promised byte-identical (its
 * metadata names the writer), readers of it do not depend on row order, and the sort was half
 * of its time (10M time entries: 14.6 s ordered, 6.8 s not), so its rows come in the order
 * DuckDB reads them; the same rows and sums all the same.
 */
const ORDERED: Record<ExportFormat, boolean> = { csv: true, ndjson: true, parquet: false };

/** One COPY of the report (or of the rows `filter` keeps) to `file`; its row count. */
async function copy(
  connection: DuckDBConnection,
  report: ExportReport,
  p: ExportParams,
  format: ExportFormat,
  file: string,
  options: { header: boolean; filters: RowFilter[] },
): Promise<number> {
  const rows = exportSelect(report, p, format, {
    ordered: ORDERED[format],
    filters: options.filters,
  });
  const copyOptions =
    format === 'csv' && !options.header
      ? COPY_OPTIONS.csv.replace('HEADER true', 'HEADER false')
      : COPY_OPTIONS[format];
  const copied = await runCompiled(connection, copyStatement(rows, file, copyOptions));
  return Number(copied.getRows()[0]?.[0] ?? 0);
}

/** A part: rows whose partition key is >= from (when given) and < to (when given). */
interface PartRange {
  from?: string;
  to?: string;
}

/**
 * Ranges of the partition key holding about `partRows` rows each, from the count of rows per
 * key value (a date: a few thousand values at most).
 */
async function partRanges(
  connection: DuckDBConnection,
  report: ExportReport,
  p: ExportParams,
  filter: RowFilter | undefined,
  partRows: number,
): Promise<PartRange[]> {
  const key = sql.raw(report.partitionKey!.sql);
  const counts = filtered(report.source(p), filter ? [filter] : [])
    .select([sql`CAST(${key} AS VARCHAR)`.as('key'), sql`count(*)`.as('rows')])
    .groupBy(key)
    .orderBy(key);
  const reader = await runCompiled(connection, counts.compile());
  const ranges: PartRange[] = [];
  let rows = 0;
  let start: string | undefined;
  for (const [value, count] of reader.getRows() as [string, bigint][]) {
    if (rows >= partRows) {
      ranges.push({ ...(start === undefined ? {} : { from: start }), to: value });
      start = value;
      rows = 0;
    }
    rows += Number(count);
  }
  ranges.push(start === undefined ? {} : { from: start });
  return ranges;
}

/** Writes the parts with the connections at once, then joins them into `file` in order. */
async function copyParts(
  connections: DuckDBConnection[],
  report: ExportReport,
  p: ExportParams,
  format: ExportFormat,
  file: string,
  filter: RowFilter | undefined,
  parts: PartRange[],
): Promise<number> {
  const key = report.partitionKey!;
  const partFile = (i: number) => `${file}.part-${i}`;
  const counts: number[] = [];
  let next = 0;
  await Promise.all(
    connections.map(async (connection) => {
      for (let i = next++; i < parts.length; i = next++) {
        const { from, to } = parts[i]!;
        const value = (bound: string) => sql`CAST(${bound} AS ${sql.raw(key.type)})`;
        const inPart: RowFilter[] = [
          ...(filter ? [filter] : []),
          ...(from === undefined ? [] : [sql<SqlBool>`${sql.raw(key.sql)} >= ${value(from)}`]),
          ...(to === undefined ? [] : [sql<SqlBool>`${sql.raw(key.sql)} < ${value(to)}`]),
        ];
        counts[i] = await copy(connection, report, p, format, partFile(i), {
          header: i === 0,
          filters: inPart,
        });
      }
    }),
  );
  const out = createWriteStream(file);
  try {
    for (let i = 0; i < parts.length; i++) {
      for await (const chunk of createReadStream(partFile(i))) {
        if (!out.write(chunk)) await once(out, 'drain');
      }
      await rm(partFile(i));
    }
  } finally {
    await new Promise<void>((resolve, reject) =>
      out.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  }
  return counts.reduce((a, b) => a + b, 0);
}

/** SHA-256 (hex) and size of a file, read as a stream. */
export async function fileDigest(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return { sha256: hash.digest('hex'), bytes: (await stat(file)).size };
}
