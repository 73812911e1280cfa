// How long do generating and importing N time entries take, and how much memory do they
// need? Each step runs as its own CLI process under /usr/bin/time, so its peak RSS is its
// own. Baseline in the same run: reading and JSON-parsing the same file and nothing else
// (the floor any importer pays), so the ratio shows what validation, COPY and the checks cost.
//
//   npm run bench -- import [timeEntries=1000000]
import { spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const entries = Number(process.argv[2] ?? 1_000_000);
const root = path.resolve(import.meta.dirname, '..');
const dir = await mkdtemp(path.join(tmpdir(), 'll-bench-import-'));
await chmod(dir, 0o755);
const file = path.join(dir, 'workspace.ndjson');
const env = { ...process.env, DATA_DIR: path.join(dir, 'data') };

function timed(label: string, args: string[]): { seconds: number; rssMb: number } {
  const result = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%e %M',
      process.execPath,
      '--import',
      'tsx',
      path.join(root, 'src/cli/main.ts'),
      ...args,
    ],
    {
      env,
      encoding: 'utf8',
    },
  );
  const last = result.stderr.trim().split('\n').at(-1) ?? '';
  if (result.status !== 0) throw new Error(`${label} failed:\n${result.stderr}`);
  const [seconds, kb] = last.split(' ').map(Number);
  return { seconds: seconds!, rssMb: kb! / 1024 };
}

async function parseOnly(): Promise<number> {
  const started = process.hrtime.bigint();
  let n = 0;
  for await (const line of createInterface({
    input: createReadStream(file, { highWaterMark: 1 << 20 }),
    crlfDelay: Infinity,
  })) {
    if (line) {
      JSON.parse(line);
      n++;
    }
  }
  if (n === 0) throw new Error('empty file');
  return Number(process.hrtime.bigint() - started) / 1e9;
}

try {
  const generate = timed('generate', [
    'generate',
    '--time-entries',
    String(entries),
    '--seed',
    '42',
    '--out',
    file,
  ]);
  const bytes = (await stat(file)).size;
  const parse = await parseOnly();
  const load = timed('import', ['import', file]);
  const row = (name: string, r: { seconds: number; rssMb: number }) =>
    `${name.padEnd(10)} ${r.seconds.toFixed(1).padStart(7)} s  ${Math.round(entries / r.seconds)
      .toLocaleString('en-US')
      .padStart(10)} entries/s  peak RSS ${Math.round(r.rssMb)} MB`;
  console.log(
    `${entries.toLocaleString('en-US')} time entries, file ${(bytes / 2 ** 20).toFixed(0)} MiB`,
  );
  console.log(row('generate', generate));
  console.log(row('import', load));
  console.log(
    `${'parse only'.padEnd(10)} ${parse.toFixed(1).padStart(7)} s  (baseline: read + JSON.parse, in-process)`,
  );
  console.log(`import / parse-only time: ${(load.seconds / parse).toFixed(2)}x`);
  console.log(
    `peak RSS under 1 GB: generate ${generate.rssMb < 1024 ? 'yes' : 'NO'}, import ${load.rssMb < 1024 ? 'yes' : 'NO'}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
