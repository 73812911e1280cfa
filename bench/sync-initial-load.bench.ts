// How fast is the first load of the read model, against how fast PostgreSQL can hand out
// the same rows? Baseline, same run: COPY (SELECT <the same columns>) TO STDOUT of every
// read-model table over the same two connections, read and thrown away: the source's own limit.
//   npm run bench -- sync-initial-load [timeEntries=10000000]   (BENCH_DIR, default /tmp/ll-bench-10m)
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { to as copyTo } from 'pg-copy-streams';
import { openReadModel } from '../src/readmodel/read-model.ts';
import {
  CHUNK_PAGES,
  fullSync,
  pgExpression,
  planChunks,
  readModelTables,
} from '../src/sync/full-sync.ts';
import { benchStore, log, peakRssMb } from './support.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../src/cli/derived-tables.ts';

const entries = Number(process.argv[2] ?? 10_000_000);
const bench = await benchStore(
  process.env.BENCH_DIR ?? path.join(tmpdir(), 'll-bench-10m'),
  entries,
);
const dir = await mkdtemp(path.join(tmpdir(), 'll-initial-'));
// The embedded server writes the load's slices itself when it can enter the folder.
await chmod(dir, 0o755);
try {
  const readModel = await openReadModel(path.join(dir, 'read-model.duckdb'), READ_MODEL_PARTS);
  const duck = await readModel.connect();
  const tables = await readModelTables(duck, DERIVED_TABLES);
  duck.closeSync();

  // Baseline: the rows as PostgreSQL sends them, nothing done with them, over as many
  // connections as the load uses, each taking the next heap slice, under one snapshot.
  const first = await bench.pool.connect();
  const clients = [first, await bench.pool.connect()];
  let copied = 0;
  let bytes = 0;
  const t0 = performance.now();
  await first.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  const { rows: exported } = await first.query<{ name: string }>(
    'SELECT pg_export_snapshot() AS name',
  );
  for (const client of clients.slice(1)) {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET TRANSACTION SNAPSHOT '${exported[0]!.name}'`);
  }
  const { chunks } = await planChunks(first, tables, CHUNK_PAGES);
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < chunks.length) {
        const chunk = chunks[next++]!;
        const source = client.query(
          copyTo(
            `COPY (SELECT ${chunk.columns.map(pgExpression).join(', ')} FROM ${chunk.table} ${chunk.where}) TO STDOUT WITH (FORMAT csv)`,
          ),
        );
        await pipeline(
          source,
          new Writable({ write: (data: Buffer, _e, done) => ((bytes += data.length), done()) }),
        );
        copied += source.rowCount;
      }
    }),
  );
  for (const client of clients) {
    await client.query('COMMIT');
    client.release();
  }
  const copySeconds = (performance.now() - t0) / 1000;
  log(`baseline done: ${copied} rows`);

  // The first load, end to end.
  const phases: Record<string, number> = {};
  const built: string[] = [];
  let last = performance.now();
  const t1 = performance.now();
  const result = await fullSync(bench.pool, readModel, DERIVED_TABLES, {
    tmpDir: dir,
    onProgress: (p) => {
      const now = performance.now();
      phases[p.phase] = (phases[p.phase] ?? 0) + (now - last);
      last = now;
    },
    onBuilt: (part, ms) => built.push(`${part} ${(ms / 1000).toFixed(1)} s`),
  });
  const loadSeconds = (performance.now() - t1) / 1000;
  readModel.close();

  const rate = (rows: number, s: number) =>
    `${Math.round(rows / s).toLocaleString('en-US')} rows/s`;
  console.log(
    `${result.rows.toLocaleString('en-US')} rows in ${result.tables} tables (${(bytes / 2 ** 30).toFixed(2)} GiB of CSV)`,
  );
  console.log(
    `COPY TO STDOUT alone   ${copySeconds.toFixed(1).padStart(6)} s  ${rate(copied, copySeconds)}  [baseline]`,
  );
  console.log(
    `first load end to end  ${loadSeconds.toFixed(1).padStart(6)} s  ${rate(result.rows, loadSeconds)}`,
  );
  console.log(
    `  of which PostgreSQL -> CSV files ${((phases.copy ?? 0) / 1000).toFixed(1)} s, DuckDB reading them ${((phases.load ?? 0) / 1000).toFixed(1)} s`,
  );
  console.log(`  then the derived parts: ${built.join(', ')}`);
  console.log(
    `load rate / COPY rate: ${(copySeconds / loadSeconds).toFixed(2)}   goal >= 250,000 rows/s -> ${result.rows / loadSeconds >= 250_000 ? 'met' : 'NOT met'}`,
  );
  console.log(`peak RSS ${Math.round(peakRssMb())} MB (goal < 2048)`);
} finally {
  await bench.close();
  await rm(dir, { recursive: true, force: true });
}
