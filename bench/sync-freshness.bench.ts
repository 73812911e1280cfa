// How soon is a committed write visible in the read model, under 500 committed writes/s?
// Each write is a one-row UPDATE in its own transaction; its lag is from the moment COMMIT
// returned to the moment the read model has applied it. Baseline, same run: the commit
// latency of those writes (what the writer itself waits for).
//   npm run bench -- sync-freshness [seconds=60] [writesPerSecond=500]
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchStore, percentile, syncedReadModel } from './support.ts';

const seconds = Number(process.argv[2] ?? 60);
const rate = Number(process.argv[3] ?? 500);
const bench = await benchStore(
  process.env.BENCH_DIR ?? path.join(tmpdir(), 'ledgerline-bench-200k'),
  200_000,
);
const target = await syncedReadModel(bench, 'll-fresh-');
const sync = target.sync();
try {
  await sync.start();
  const ids = (
    await bench.pool.query<{ id: string }>('SELECT id FROM time_entries ORDER BY id LIMIT 5000')
  ).rows.map((r) => r.id);
  const lags: number[] = [];
  const commits: number[] = [];
  const waits: Promise<void>[] = [];
  const total = seconds * rate;
  const started = performance.now();
  let issued = 0;
  const writer = async () => {
    for (;;) {
      const n = issued++;
      if (n >= total) return;
      // Pace: write n is due at started + n / rate.
      const due = started + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const client = await bench.pool.connect();
      try {
        const t0 = performance.now();
        await client.query(
          'UPDATE time_entries SET duration_seconds = duration_seconds + 1 WHERE id = $1',
          [ids[n % ids.length]],
        );
        const committed = performance.now();
        commits.push(committed - t0);
        const { rows } = await client.query<{ lsn: string }>(
          'SELECT pg_current_wal_insert_lsn()::text AS lsn',
        );
        waits.push(
          sync.waitFor(rows[0]!.lsn).then(() => void lags.push(performance.now() - committed)),
        );
      } finally {
        client.release();
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(waits);
  lags.sort((a, b) => a - b);
  commits.sort((a, b) => a - b);
  const p = (xs: number[], q: number) => percentile(xs, q).toFixed(1);
  console.log(
    `${total.toLocaleString('en-US')} committed writes in ${elapsed.toFixed(1)} s (${Math.round(total / elapsed)} writes/s)`,
  );
  console.log(
    `commit latency         p50 ${p(commits, 50)} ms  p99 ${p(commits, 99)} ms  [baseline]`,
  );
  console.log(
    `commit-to-visible lag  p50 ${p(lags, 50)} ms  p99 ${p(lags, 99)} ms  max ${lags.at(-1)!.toFixed(1)} ms`,
  );
  console.log(
    `lag p99 / commit p99: ${(percentile(lags, 99) / percentile(commits, 99)).toFixed(1)}x   goal: p99 < 1000 ms -> ${percentile(lags, 99) < 1000 ? 'met' : 'NOT met'}`,
  );
} finally {
  await sync.stop();
  await target.close();
}
