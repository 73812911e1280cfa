// How fast does the sync apply a burst of 100,000 changed rows? The burst is committed while
// the sync is stopped, then the sync is started and timed until it has applied all of it,
// so the figure is the sync's own apply rate, not PostgreSQL's write rate.
// Baseline, same run: how long PostgreSQL itself took to make those changes.
//   npm run bench -- sync-burst [rows=100000]     (BENCH_DIR, default /tmp/ledgerline-bench-200k)
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchStore, peakRssMb, syncedReadModel } from './support.ts';

const rows = Number(process.argv[2] ?? 100_000);
const bench = await benchStore(
  process.env.BENCH_DIR ?? path.join(tmpdir(), 'ledgerline-bench-200k'),
  200_000,
);
const target = await syncedReadModel(bench, 'll-burst-');
const service = target.sync;
const sync = service();
try {
  const first = service();
  await first.start();
  await first.stop();
  const ids = (
    await bench.pool.query<{ id: string }>('SELECT id FROM time_entries ORDER BY id LIMIT $1', [
      rows,
    ])
  ).rows.map((r) => r.id);
  if (ids.length < rows) throw new Error(`The bench workspace has only ${ids.length} time entries`);

  // The burst: ten transactions of rows/10 updates each, as fast as PostgreSQL takes them.
  const started = performance.now();
  const chunk = Math.ceil(rows / 10);
  for (let i = 0; i < rows; i += chunk) {
    await bench.pool.query(
      "UPDATE time_entries SET note = 'burst ' || now()::text, updated_at = now() WHERE id = ANY($1::uuid[])",
      [ids.slice(i, i + chunk)],
    );
  }
  const pgSeconds = (performance.now() - started) / 1000;
  const { rows: lsn } = await bench.pool.query<{ lsn: string }>(
    'SELECT pg_current_wal_insert_lsn()::text AS lsn',
  );

  const applyStarted = performance.now();
  await sync.start();
  await sync.waitFor(lsn[0]!.lsn);
  const applySeconds = (performance.now() - applyStarted) / 1000;

  const perSecond = (n: number, s: number) => `${Math.round(n / s).toLocaleString('en-US')} rows/s`;
  console.log(
    `burst of ${rows.toLocaleString('en-US')} updated rows (${sync.metrics.rowsApplied.toLocaleString('en-US')} row changes streamed: old and new row per update)`,
  );
  console.log(
    `PostgreSQL wrote them in  ${pgSeconds.toFixed(2)} s  (${perSecond(rows, pgSeconds)})  [baseline]`,
  );
  console.log(
    `the sync applied them in  ${applySeconds.toFixed(2)} s  (${perSecond(rows, applySeconds)}, from connecting to caught up)`,
  );
  console.log(
    `apply rate / PostgreSQL write rate: ${(pgSeconds / applySeconds).toFixed(2)}x   goal: >= 50,000 rows/s -> ${rows / applySeconds >= 50_000 ? 'met' : 'NOT met'}`,
  );
  console.log(`peak RSS ${Math.round(peakRssMb())} MB`);
} finally {
  await sync.stop();
  await target.close();
}
