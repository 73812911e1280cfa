// What does printing a report's figures cost? A profitability report of a large workspace
// prints tens of thousands of sums, each an integer count of 10^-4 read from DuckDB, nearly all
// with digits past their currency's scale. formatE4 prints them with BigInt; the baseline is
// the same text through decimal.js (formatDecimal of the count divided by 10^4), which the
// report used before. Both print the same text (src/money/money.test.ts).
//   npm run bench -- money [figures=40000]
import { Bench } from 'tinybench';
import { formatDecimal, formatE4, Money } from '../src/money/money.ts';
import { cpuLoopMs, log, percentile } from './support.ts';

const figures = Number(process.argv[2] ?? 40_000);

// A deterministic page of sums: sizes from cents to billions, both signs, at the scales of
// JPY (0), EUR (2) and KWD (3); most with digits past their scale, as converted sums have.
let seed = 5;
const next = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed;
};
const page = Array.from({ length: figures }, () => {
  const digits = 3 + (next() % 14);
  let e4 = BigInt(next() % 9) + 1n;
  for (let i = 1; i < digits; i++) e4 = e4 * 10n + BigInt(next() % 10);
  return { e4: next() % 5 === 0 ? -e4 : e4, scale: [0, 2, 2, 2, 3][next() % 5]! };
});

const viaDecimal = (e4: bigint, scale: number) =>
  formatDecimal(new Money(e4.toString()).div(10_000), scale);
for (const { e4, scale } of page.slice(0, 1000))
  if (formatE4(e4, scale) !== viaDecimal(e4, scale))
    throw new Error(`formatE4 and decimal.js differ on ${e4} at scale ${scale}`);

const loopBefore = cpuLoopMs();
const bench = new Bench({ time: 2000, warmupTime: 500, retainSamples: true });
bench
  .add('decimal.js (formatDecimal of count / 10^4)', () => {
    for (const { e4, scale } of page) viaDecimal(e4, scale);
  })
  .add('BigInt (formatE4)', () => {
    for (const { e4, scale } of page) formatE4(e4, scale);
  });
await bench.run();
const loopAfter = cpuLoopMs();

log(`${figures.toLocaleString('en-US')} figures per run; ms per page, p50 / p95`);
const p50s: number[] = [];
for (const task of bench.tasks) {
  const result = task.result;
  if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
  const samples = [...(result.latency.samples ?? [])].sort((a, b) => a - b);
  const p50 = percentile(samples, 50);
  p50s.push(p50);
  log(
    `${task.name.padEnd(44)} ${p50.toFixed(2).padStart(8)} / ${percentile(samples, 95)
      .toFixed(2)
      .padStart(8)}   n=${samples.length}`,
  );
}
log(`formatE4 / decimal.js (p50): ${(p50s[1]! / p50s[0]!).toFixed(3)}`);
log(`fixed CPU loop: ${loopBefore.toFixed(0)} ms before, ${loopAfter.toFixed(0)} ms after`);
