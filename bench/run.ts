// npm run bench [-- <name>]: runs bench/<name>.bench.ts, or every benchmark in turn.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
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
for (const bench of benches) {
  process.stdout.write(`\n== ${bench}\n`);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(dir, bench), ...process.argv.slice(3)],
    { stdio: 'inherit' },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}
