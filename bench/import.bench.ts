// How fast does a workspace snapshot import, end to end, and how far is that from
// PostgreSQL's own COPY of the same rows? Generates N time entries (NDJSON), imports them with
// the CLI (its own process under /usr/bin/time: wall time and peak RSS are the importer's;
// the store runs apart, in this process's embedded PostgreSQL), then COPYs every imported
// row again, as text and as binary, into plain tables without keys, references, checks or
// indexes: the floor of any load into PostgreSQL. Also the floor of the reading side: the
// importer's reader alone (reading the file and splitting it into lines), in this process.
//
//   npm run bench -- import [timeEntries=1000000]
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { LOAD_ORDER } from '../src/snapshot/import.ts';
import { readSnapshot } from '../src/snapshot/read-snapshot.ts';
import { createPool } from '../src/store/database.ts';
import { startEmbeddedStore } from '../src/store/embedded-postgres.ts';
import { migrate } from '../src/store/migrate.ts';
import { cpuLoopMs } from './support.ts';

const entries = Number(process.argv[2] ?? 1_000_000);
const root = path.resolve(import.meta.dirname, '..');
const dir = await mkdtemp(path.join(tmpdir(), 'll-bench-import-'));
await chmod(dir, 0o755);
const file = path.join(dir, 'workspace.ndjson');

/** Every table an import fills. */
const TABLES = ['workspaces', ...LOAD_ORDER];

interface Run {
  seconds: number;
  rssMb: number;
  output: string;
}

function cli(label: string, args: string[], databaseUrl: string): Run {
  const result = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%e %M',
      process.execPath,
      '--initial-old-space-size=256',
      '--import',
      'tsx',
      path.join(root, 'src/cli/main.ts'),
      ...args,
    ],
    { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: 'utf8', cwd: root },
  );
  const lines = result.stderr.trim().split('\n');
  if (result.status !== 0) throw new Error(`${label} failed:\n${result.stderr}`);
  const [seconds, kb] = (lines.at(-1) ?? '').split(' ').map(Number);
  return { seconds: seconds!, rssMb: kb! / 1024, output: lines.slice(0, -1).join('\n') };
}

/** The importer's reader alone: reading and splitting the file into lines. */
async function readOnly(): Promise<number> {
  const started = performance.now();
  let records = 0;
  for await (const batch of readSnapshot(file))
    for (const item of batch) records += item.kind === 'bytes' ? item.count : 1;
  if (records === 0) throw new Error('empty file');
  return (performance.now() - started) / 1000;
}

/**
 * COPYs every row of the workspace out to files (not timed), then back into plain tables
 * (`LIKE` the real ones: columns and NOT NULL only), timed; all in a transaction that is
 * rolled back.
 */
async function copyBaseline(
  pool: pg.Pool,
  workspaceId: string,
  format: 'text' | 'binary',
): Promise<{ seconds: number; rows: number }> {
  const client = await pool.connect();
  try {
    // COPY takes no parameters; the query reads the workspace id from a setting instead.
    await client.query(`SELECT set_config('bench.workspace', $1, false)`, [workspaceId]);
    let rows = 0;
    for (const table of TABLES) {
      const where = `${table === 'workspaces' ? 'id' : 'workspace_id'} = current_setting('bench.workspace')::uuid`;
      const { rows: counted } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${table} WHERE ${where}`,
      );
      rows += Number(counted[0]!.n);
      const source = client.query(
        copyTo(`COPY (SELECT * FROM ${table} WHERE ${where}) TO STDOUT (FORMAT ${format})`),
      );
      await pipeline(source, createWriteStream(path.join(dir, `${table}.${format}`)));
    }
    await client.query('BEGIN');
    for (const table of TABLES)
      await client.query(`CREATE TABLE baseline_${table} (LIKE ${table})`);
    const started = performance.now();
    for (const table of TABLES) {
      const sink = client.query(copyFrom(`COPY baseline_${table} FROM STDIN (FORMAT ${format})`));
      await pipeline(createReadStream(path.join(dir, `${table}.${format}`)), sink);
    }
    const seconds = (performance.now() - started) / 1000;
    await client.query('ROLLBACK');
    for (const table of TABLES) await rm(path.join(dir, `${table}.${format}`));
    return { seconds, rows };
  } finally {
    client.release();
  }
}

const store = await startEmbeddedStore({ dataDir: path.join(dir, 'data') });
const pool = createPool(store.url, 2);
try {
  await migrate(pool);
  const loopBefore = cpuLoopMs();
  const generate = cli(
    'generate',
    ['generate', '--time-entries', String(entries), '--seed', '42', '--out', file],
    store.url,
  );
  const bytes = (await stat(file)).size;
  const read = await readOnly();
  const load = cli('import', ['import', file], store.url);
  const workspaceId = /workspace ([0-9a-f-]{36})/.exec(load.output)?.[1];
  if (!workspaceId) throw new Error(`import printed no workspace id:\n${load.output}`);
  const text = await copyBaseline(pool, workspaceId, 'text');
  const binary = await copyBaseline(pool, workspaceId, 'binary');
  const loopAfter = cpuLoopMs();

  const rows = text.rows;
  const perSecond = (seconds: number) =>
    `${Math.round(rows / seconds)
      .toLocaleString('en-US')
      .padStart(9)} rows/s`;
  const line = (name: string, seconds: number, extra = '') =>
    console.log(`${name.padEnd(24)} ${seconds.toFixed(1).padStart(7)} s  ${extra}`);
  console.log(
    `${entries.toLocaleString('en-US')} time entries: ${rows.toLocaleString('en-US')} rows in all tables, file ${(bytes / 2 ** 20).toFixed(0)} MiB`,
  );
  line('generate', generate.seconds, `peak RSS ${Math.round(generate.rssMb)} MB`);
  line(
    'import, end to end',
    load.seconds,
    `${perSecond(load.seconds)}  peak RSS ${Math.round(load.rssMb)} MB`,
  );
  console.log(`  ${load.output.split('\n').at(-1)!.trim()}`);
  line('COPY FROM, text', text.seconds, perSecond(text.seconds));
  line('COPY FROM, binary', binary.seconds, perSecond(binary.seconds));
  line('read + split only', read, "(the importer's reader, in this process)");
  console.log(
    `import / COPY text ${(load.seconds / text.seconds).toFixed(2)}x, import / COPY binary ${(load.seconds / binary.seconds).toFixed(2)}x, import / read only ${(load.seconds / read).toFixed(2)}x`,
  );
  console.log(
    `CPU loop (support.ts): ${loopBefore.toFixed(0)} ms before, ${loopAfter.toFixed(0)} ms after (about 500-850 ms on a quiet machine)`,
  );
} finally {
  await pool.end();
  await store.stop();
  await rm(dir, { recursive: true, force: true });
}
