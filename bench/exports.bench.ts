// How fast, and in how much memory, are the largest exports? On the generated workspace of 10M
// time entries: the time-entries export to Parquet and to CSV (the whole workspace, and a
// range of about a tenth of it, to see whether memory grows with the rows), through the same
// code as `npm run cli -- export-report` (COPY, money sums, SHA-256, manifest, rename).
// Reported: rows/s, the process's peak RSS during each run (sampled every 50 ms) and DuckDB's
// own peak memory (duckdb_memory(), sampled alike); and how long `verify` takes on the CSV.
// Baseline, same run: PostgreSQL's `COPY (SELECT the same rows ORDER BY the same keys) TO STDOUT
// (FORMAT csv)` written to a file.
// Goal (issue 6): at least 2M rows/s, and memory flat (peak RSS independent of the row count).
//   npm run bench -- exports [entries=10000000]
//   (BENCH_DIR, default /tmp/ll-bench-10m. The read model is kept there as
//   read-model-exports.duckdb, apart from the other benchmarks' read-model.duckdb: this branch's
//   tables.sql differs, and opening theirs would rebuild it.)
import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { to as copyTo } from 'pg-copy-streams';
import { resolveExportRequest, runExport } from '../src/exports/export-run.ts';
import { MANIFEST_FILE, verifyManifest } from '../src/exports/manifest.ts';
import type { ReadModel } from '../src/readmodel/read-model.ts';
import { benchStore, keptReadModel, log } from './support.ts';

const entries = Number(process.argv[2] ?? 10_000_000);
const dir = process.env.BENCH_DIR ?? path.join(tmpdir(), 'll-bench-10m');
const bench = await benchStore(dir, entries);
const out = path.join(dir, 'exports-out');
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const rate = (rows: number, ms: number) => Math.round(rows / (ms / 1000));

/** Samples RSS and DuckDB's memory while `work` runs; returns their peaks with its result. */
async function measured<T>(
  readModel: ReadModel,
  work: () => Promise<T>,
): Promise<{ result: T; ms: number; rssMb: number; duckMb: number }> {
  const probe = await readModel.connect();
  let rss = process.memoryUsage().rss;
  let duck = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rss = Math.max(rss, process.memoryUsage().rss);
      const reader = await probe.runAndReadAll(
        'SELECT CAST(sum(memory_usage_bytes) AS BIGINT) FROM duckdb_memory()',
      );
      duck = Math.max(duck, Number(reader.getRows()[0]?.[0] ?? 0));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    return { result, ms: performance.now() - started, rssMb: mb(rss), duckMb: mb(duck) };
  } finally {
    sampling = false;
    await sampler;
    probe.closeSync();
  }
}

try {
  const { readModel } = await keptReadModel(bench, path.join(dir, 'read-model-exports.duckdb'));
  const { rows: workspaces } = await bench.pool.query<{ id: string }>(
    'SELECT workspace_id AS id FROM time_entries GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
  );
  const ws = workspaces[0]!.id;
  // About a tenth of the entries: the latest dates that hold them.
  const { rows: cut } = await bench.pool.query<{ from: string }>(
    `SELECT to_char(entry_date, 'YYYY-MM-DD') AS from FROM time_entries
     WHERE workspace_id = $1 AND deleted_at IS NULL
     ORDER BY entry_date DESC OFFSET (SELECT count(*) / 10 FROM time_entries WHERE workspace_id = $1) LIMIT 1`,
    [ws],
  );
  const tenth = cut[0]!.from;

  const lines: string[] = [];
  const runs: Record<string, { rows: number; ms: number; rssMb: number }> = {};
  for (const [label, format, from, helpers] of [
    ['parquet, a tenth', 'parquet', tenth, 0],
    ['csv, a tenth', 'csv', tenth, 0],
    ['parquet, all', 'parquet', undefined, 0],
    ['csv, all', 'csv', undefined, 0],
    // The same CSV in parts of 500,000 rows, written by two connections at once and joined.
    ['csv, all, in parts', 'csv', undefined, 1],
  ] as const) {
    await rm(out, { recursive: true, force: true });
    const connection = await readModel.connect();
    const request = await resolveExportRequest(connection, {
      report: 'time-entries',
      workspaceId: ws,
      format,
      ...(from ? { from } : {}),
    }).finally(() => connection.closeSync());
    const run = await measured(readModel, () =>
      runExport(readModel, request, { outDir: out, log, helpers }),
    );
    const file = run.result.manifest.files[0]!;
    runs[label] = { rows: file.rows, ms: run.ms, rssMb: run.rssMb };
    lines.push(
      `${label.padEnd(18)} ${file.rows.toLocaleString('en-US').padStart(11)} rows  ${(run.ms / 1000).toFixed(1).padStart(6)} s  ${rate(file.rows, run.ms).toLocaleString('en-US').padStart(10)} rows/s  ${mb(file.bytes).toLocaleString('en-US').padStart(6)} MB  peak RSS ${run.rssMb} MB, DuckDB ${run.duckMb} MB`,
    );
    log(lines.at(-1)!);
    if (label === 'csv, all') {
      // verify reads the file back: its SHA-256, rows and money sums.
      const started = performance.now();
      const differences = await verifyManifest(path.join(run.result.folder, MANIFEST_FILE));
      const ms = performance.now() - started;
      lines.push(
        `verify of that CSV: ${(ms / 1000).toFixed(1)} s, ${rate(file.rows, ms).toLocaleString('en-US')} rows/s, ${differences.length === 0 ? 'all matches' : differences.join('; ')}`,
      );
      log(lines.at(-1)!);
    }
  }
  await rm(out, { recursive: true, force: true });

  // Baseline: PostgreSQL writing the same rows, in the same order, as CSV into a file.
  const baselineFile = path.join(dir, 'exports-baseline.csv');
  const client = await bench.pool.connect();
  // COPY takes no parameters: the workspace is bound into a session setting it reads.
  await client.query("SELECT set_config('ledgerline.bench_workspace', $1, false)", [ws]);
  const started = performance.now();
  try {
    await pipeline(
      client.query(
        copyTo(
          `COPY (SELECT id, workspace_id, user_id, project_id, task_id, invoice_id, duration_seconds,
             billable, is_running, note, entry_date, started_at, stopped_at, created_at, updated_at,
             deleted_at FROM time_entries
           WHERE workspace_id = current_setting('ledgerline.bench_workspace')::uuid
             AND deleted_at IS NULL ORDER BY entry_date, id)
           TO STDOUT (FORMAT csv, HEADER)`,
        ),
      ),
      createWriteStream(baselineFile),
    );
  } finally {
    client.release();
  }
  const pgMs = performance.now() - started;
  const pgBytes = (await stat(baselineFile)).size;
  await rm(baselineFile);
  const all = runs['csv, all']!;
  const pgRate = rate(all.rows, pgMs);
  lines.push(
    `baseline: PostgreSQL COPY … TO STDOUT (csv, same rows and order) into a file: ${(pgMs / 1000).toFixed(1)} s, ${pgRate.toLocaleString('en-US')} rows/s, ${mb(pgBytes)} MB`,
  );
  for (const format of ['parquet', 'csv']) {
    const whole = runs[`${format}, all`]!;
    const part = runs[`${format}, a tenth`]!;
    lines.push(
      `${format}: ${(rate(whole.rows, whole.ms) / pgRate).toFixed(2)}x the baseline's rows/s; goal 2,000,000 rows/s: ${rate(whole.rows, whole.ms) >= 2_000_000 ? 'met' : 'not met'}; peak RSS ${part.rssMb} MB for ${part.rows.toLocaleString('en-US')} rows, ${whole.rssMb} MB for ${whole.rows.toLocaleString('en-US')} (x${(whole.rows / part.rows).toFixed(1)} rows, x${(whole.rssMb / part.rssMb).toFixed(2)} RSS)`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  readModel.close();
} finally {
  await bench.close();
}
