// How fast does the sync apply a burst of 100,000 changed rows?
// Baseline, same run: how long PostgreSQL itself took to make those changes.
//   npm run bench -- sync-burst [rows=100000]     (BENCH_DIR, default /tmp/ledgerline-bench-200k)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openReadModel } from '../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../src/readmodel/read-model-status.ts';
import { SyncService } from '../src/sync/sync-service.ts';
import { benchStore, log, peakRssMb } from './support.ts';

const rows = Number(process.argv[2] ?? 100_000);
const bench = await benchStore(
  process.env.BENCH_DIR ?? path.join(tmpdir(), 'ledgerline-bench-200k'),
  200_000,
);
const dir = await mkdtemp(path.join(tmpdir(), 'll-burst-'));
const readModel = await openReadModel(path.join(dir, 'read-model.duckdb'));
const sync = new SyncService({
  pool: bench.pool,
  url: bench.url,
  readModel,
  status: new ReadModelStatus(),
  log,
});
try {
  await sync.start();
  const ids = (
    await bench.pool.query<{ id: string }>('SELECT id FROM time_entries ORDER BY id LIMIT $1', [
      rows,
    ])
  ).rows.map((r) => r.id);
  if (ids.length < rows) throw new Error(`The bench workspace has only ${ids.length} time entries`);
  const before = sync.metrics.rowsApplied;

  // The burst: ten transactions of rows/10 updates each, as fast as PostgreSQL takes them.
  const started = performance.now();
  const chunk = Math.ceil(rows / 10);
  for (let i = 0; i < rows; i += chunk) {
    await bench.pool.query(
      "UPDATE time_entries SET note = 'burst ' || now()::text, updated_at = now() WHERE id = ANY($1::uuid[])",
      [ids.slice(i, i + chunk)],
    );
  }
  const written = performance.now();
  const { rows: lsn } = await bench.pool.query<{ lsn: string }>(
    'SELECT pg_current_wal_insert_lsn()::text AS lsn',
  );
  await sync.waitFor(lsn[0]!.lsn);
  const visible = performance.now();

  const applied = sync.metrics.rowsApplied - before;
  const pgSeconds = (written - started) / 1000;
  const endToEnd = (visible - started) / 1000;
  const afterWrite = (visible - written) / 1000;
  console.log(
    `burst of ${rows.toLocaleString('en-US')} updated rows (${applied.toLocaleString('en-US')} row changes streamed, old+new per update)`,
  );
  console.log(
    `PostgreSQL wrote them in        ${pgSeconds.toFixed(2)} s  (${Math.round(rows / pgSeconds).toLocaleString('en-US')} rows/s)  [baseline]`,
  );
  console.log(
    `visible in the read model after ${endToEnd.toFixed(2)} s  (${Math.round(rows / endToEnd).toLocaleString('en-US')} rows/s end to end; ${afterWrite.toFixed(2)} s after the last commit)`,
  );
  console.log(
    `apply rate / PostgreSQL write rate: ${(pgSeconds / endToEnd).toFixed(2)}x   goal: >= 50,000 rows/s -> ${rows / endToEnd >= 50_000 ? 'met' : 'NOT met'}`,
  );
  console.log(`peak RSS ${Math.round(peakRssMb())} MB`);
} finally {
  await sync.stop();
  readModel.close();
  await bench.pool.query(
    'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT active',
  );
  await bench.close();
  await rm(dir, { recursive: true, force: true });
}
