// npm run bench [-- <name>]: runs bench/<name>.bench.ts, or every benchmark in turn.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const wanted = process.argv[2];
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted === undefined || f === `${wanted}.bench.ts`);
if (benches.length === 0) {
  process.stderr.write(`No benchmark named ${wanted}\n`);
  process.exit(1);
}
// The benchmarks serve the API in their own process: it runs with the server's V8 flags, the
// ones `npm start` passes to node (package.json; docs/lists.md, "Where the slowest 1% goes").
const packageJson = JSON.parse(readFileSync(path.join(dir, '../package.json'), 'utf8')) as {
  scripts: { start: string };
};
const serverFlags = packageJson.scripts.start
  .split(' ')
  .filter((word) => word.startsWith('--') && word !== '--import');
for (const bench of benches) {
  process.stdout.write(`\n== ${bench}\n`);
  const result = spawnSync(
    process.execPath,
    // --expose-gc lets timeRuns start each run from a collected heap; it changes nothing else.
    [
      ...serverFlags,
      '--expose-gc',
      '--import',
      'tsx',
      path.join(dir, bench),
      ...process.argv.slice(3),
    ],
    { stdio: 'inherit' },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}
