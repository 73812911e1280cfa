// How long does a search take in DuckDB on a large workspace: 100,000 clients, 20,000 projects,
// 200,000 invoices with 1,000,000 lines (and three small workspaces beside it)? And how long do
// the full index build and the refresh of a client rename (its projects and invoices) take?
// Baseline, same run: the same list query without search (newest 50 of the workspace).
//   npm run bench -- search [runs=30]
// The rows are generated straight into a DuckDB read model (a temporary file): the question is
// DuckDB's, PostgreSQL plays no part.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openReadModel } from '../src/readmodel/read-model.ts';
import { rebuildSearchIndex, SearchIndexUpdate } from '../src/search/search-index.ts';
import { searchQuery, type SearchEntity } from '../src/search/search.ts';
import {
  CITIES,
  COMPANY_SUFFIXES,
  COMPANY_WORDS,
  FIRST_NAMES,
  LAST_NAMES,
  PROJECT_NAMES,
  TASK_NAMES,
} from '../src/snapshot/generator/names.ts';
import { log, percentile, peakRssMb } from './support.ts';
import { READ_MODEL_PARTS } from '../src/cli/derived-tables.ts';

const runs = Number(process.argv[2] ?? 30);
const BIG = '00000000-0000-4000-8000-00000000b160';
const SMALL = [1, 2, 3].map((i) => `00000000-0000-4000-8000-00000000000${i}`);

const dir = process.env.SEARCH_BENCH_DIR ?? (await mkdtemp(path.join(tmpdir(), 'll-search-')));
const readModel = await openReadModel(path.join(dir, 'read-model.duckdb'), READ_MODEL_PARTS);
const duck = await readModel.connect();
const sqlList = (words: readonly string[]) =>
  `[${words.map((w) => `'${w.replace(/'/g, "''")}'`).join(', ')}]`;
const time = async (fn: () => Promise<unknown>) => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

try {
  log('generating the workspaces in DuckDB');
  await generate(duck);
  const build = await time(async () => {
    await duck.run('BEGIN TRANSACTION');
    await rebuildSearchIndex(duck);
    await duck.run('COMMIT');
  });
  await duck.run('CHECKPOINT');
  const sizes = (
    await duck.runAndReadAll(
      `SELECT (SELECT count(*) FROM search_vocabulary), (SELECT count(*) FROM search_postings),
              (SELECT count(*) FROM search_vocabulary WHERE workspace_id = '${BIG}' AND entity = 'invoice')`,
    )
  ).getRows()[0]!;
  console.log(
    `index build: ${(build / 1000).toFixed(1)} s for ${String(sizes[0])} vocabulary words and ${String(sizes[1])} postings ` +
      `(the large workspace's invoices: ${String(sizes[2])} distinct words)`,
  );

  const cases: [SearchEntity, string, string][] = [
    ['client', 'exact word', 'globex'],
    ['client', 'prefix', 'vand'],
    ['client', 'typo (1)', 'lovleace'],
    ['client', '2-letter prefix', 'gl'],
    ['client', 'two terms', 'acme gmbh'],
    ['client', 'typo (2), 8+ chars', 'andresson'],
    ['client', 'tax-number-like', 'de100004711'],
    ['client', 'no match', 'qqqqq'],
    ['project', 'member name', 'hopper'],
    ['project', 'client + name', 'globex website'],
    ['invoice', 'number', 'inv 012345'],
    ['invoice', 'line text, typo', 'devlopment'],
    ['invoice', 'client name', 'initech'],
  ];
  const table = { client: 'clients', project: 'projects', invoice: 'invoices' } as const;
  const baselines = new Map<SearchEntity, number>();
  for (const entity of ['client', 'project', 'invoice'] as const) {
    const sql = `SELECT id FROM ${table[entity]} WHERE workspace_id = $ws AND deleted_at IS NULL
                 ORDER BY created_at DESC, id DESC LIMIT 50`;
    baselines.set(entity, await median(() => duck.runAndReadAll(sql, { ws: BIG })));
  }
  console.log(
    '\nlist query with search (median of runs): rows found, the search CTE alone (ms), the whole list query (ms), ratio to the same list without search',
  );
  for (const [entity, label, text] of cases) {
    const search = searchQuery(entity, BIG, text)!;
    const sql = `WITH search AS (${search.sql})
      SELECT t.id, s.rank FROM ${table[entity]} t JOIN search s ON s.record_id = t.id
      WHERE t.workspace_id = $ws AND t.deleted_at IS NULL
      ORDER BY s.rank, t.created_at DESC, t.id DESC LIMIT 50`;
    const params = { ...search.params, ws: BIG };
    const found = (
      await duck.runAndReadAll(
        `WITH search AS (${search.sql}) SELECT count(*) FROM search`,
        search.params,
      )
    ).getRows()[0]![0];
    const alone = await median(() =>
      duck.runAndReadAll(`SELECT count(*) FROM (${search.sql})`, search.params),
    );
    const ms = await median(() => duck.runAndReadAll(sql, params));
    const base = baselines.get(entity)!;
    console.log(
      `  ${entity.padEnd(8)} ${label.padEnd(20)} ${JSON.stringify(text).padEnd(18)} ${String(found).padStart(7)} found  ${alone.toFixed(1).padStart(6)} ms  ${ms.toFixed(1).padStart(6)} ms  ${(ms / base).toFixed(1)}x`,
    );
  }
  console.log(
    `  baseline (no search): ${[...baselines].map(([e, ms]) => `${e} ${ms.toFixed(1)} ms`).join(', ')}`,
  );

  // A client rename as the sync applies it: the client, its projects and invoices refreshed.
  const client = (
    await duck.runAndReadAll(
      `SELECT c.id FROM clients c JOIN invoices i ON i.client_id = c.id WHERE c.workspace_id = '${BIG}'
       GROUP BY c.id ORDER BY count(*) DESC LIMIT 1`,
    )
  ).getRows()[0]![0] as string;
  const refresh = await time(async () => {
    await duck.run('BEGIN TRANSACTION');
    await duck.run(`UPDATE clients SET name = 'Renamed Client' WHERE id = '${client}'`);
    const update = new SearchIndexUpdate();
    await update.beforeApply(duck, 'clients', `(SELECT '${client}' AS id)`);
    await update.finish(duck);
    await duck.run('COMMIT');
  });
  console.log(
    `\nrefresh after a client rename (client, its projects and invoices): ${refresh.toFixed(0)} ms`,
  );
  console.log(`peak RSS ${Math.round(peakRssMb())} MB`);
} finally {
  duck.closeSync();
  readModel.close();
  if (!process.env.SEARCH_BENCH_DIR) await rm(dir, { recursive: true, force: true });
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await time(fn));
  return percentile(
    times.sort((a, b) => a - b),
    50,
  );
}

/** Rows with names drawn (deterministically, by hash) from the generator's word lists. */
async function generate(duck: DuckDBConnection): Promise<void> {
  const pick = (list: readonly string[], seed: string) =>
    `${sqlList(list)}[1 + (hash(${seed}) % ${list.length})::BIGINT]`;
  // Made-up brand words (about 20,000 distinct), so the vocabulary is not just the lists.
  const brand = (seed: string) =>
    `(${pick(['Ka', 'Lo', 'Ven', 'Tri', 'Mar', 'Zen', 'Qua', 'Bel', 'Dor', 'Fi', 'Su', 'Rex'], `${seed}, 1`)}
      || ${pick(['ra', 'vi', 'no', 'ta', 'lex', 'mo', 'ri', 'sa', 'ton', 'pe'], `${seed}, 2`)}
      || ${pick(['x', 'ra', 'lia', 'tix', 'nova', 'on', 'is', 'ent', 'ia', 'co'], `${seed}, 3`)}
      || (hash(${seed}, 4) % 17)::VARCHAR)`;
  const workspaces = [
    [BIG, 100_000, 20_000, 200_000, 200],
    ...SMALL.map((ws) => [ws, 1_000, 200, 2_000, 20]),
  ] as const;
  for (const [ws, clients, projects, invoices, users] of workspaces) {
    const id = (kind: number, n: string) => `md5('${ws}' || ${kind} || '-' || ${n})::UUID`;
    await duck.run(`INSERT INTO users SELECT '${ws}', ${id(1, 'i')},
      ${pick(FIRST_NAMES, 'i, 1')} || ' ' || ${pick(LAST_NAMES, 'i, 2')}, NULL, now(), now(), NULL
      FROM range(${users}) t(i)`);
    await duck.run(`INSERT INTO clients SELECT ${id(2, 'i')}, '${ws}',
      ${pick(COMPANY_WORDS, 'i, 1')} || ' ' || ${brand('i')} || ' ' || ${pick(COMPANY_SUFFIXES, 'i, 2')},
      ${pick(FIRST_NAMES, 'i, 3')} || ' ' || ${pick(LAST_NAMES, 'i, 4')},
      lower(${pick(FIRST_NAMES, 'i, 3')}) || '@' || lower(${brand('i')}) || '.example',
      '+49 30 ' || (1000000 + hash(i, 5) % 9000000)::VARCHAR,
      'https://www.' || lower(${brand('i')}) || '.example',
      CASE WHEN hash(i, 6) % 5 = 0 THEN 'Prefers invoices in English. Café meeting first.' END,
      'DE' || (100000000 + hash(i, 7) % 900000000)::VARCHAR,
      'billing@' || lower(${brand('i')}) || '.example', 'EUR',
      NULL, ${brand('i, 8')} || 'straße ' || (1 + hash(i, 9) % 200)::VARCHAR, NULL,
      ${pick(CITIES, 'i, 10')}, NULL, lpad((hash(i, 11) % 99999)::VARCHAR, 5, '0'), 'DE',
      NULL, NULL, NULL, false, now() - INTERVAL (i) SECOND, now(), NULL
      FROM range(${clients}) t(i)`);
    await duck.run(`INSERT INTO projects SELECT ${id(3, 'i')}, '${ws}', ${id(2, `hash(i, 1) % ${clients}`)},
      ${pick(PROJECT_NAMES, 'i, 2')} || ' ' || (2020 + hash(i, 3) % 6)::VARCHAR,
      CASE WHEN hash(i, 4) % 2 = 0 THEN ${pick(PROJECT_NAMES, 'i, 2')} || ' for the client''s EU team' END,
      NULL, 'ACTIVE', 'HOURLY', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
      now() - INTERVAL (i) SECOND, now(), NULL, NULL
      FROM range(${projects}) t(i)`);
    await duck.run(`INSERT INTO project_members SELECT DISTINCT '${ws}', ${id(3, 'i')}, ${id(1, `hash(i, j) % ${users}`)}, now()
      FROM range(${projects}) t(i), range(4) s(j)`);
    await duck.run(`INSERT INTO invoices SELECT ${id(4, 'i')}, '${ws}', ${id(2, `hash(i, 1) % ${clients}`)},
      'INV-' || lpad(i::VARCHAR, 6, '0'), 'SENT', 'unpaid', 'EUR', NULL, NULL, 0, 0, NULL, 0, 0,
      CASE WHEN hash(i, 2) % 3 = 0 THEN 'PO-' || (10000 + hash(i, 3) % 90000)::VARCHAR END, false, false,
      NULL, CASE WHEN hash(i, 4) % 5 = 0 THEN 'Thank you for your business.' END, NULL, NULL,
      now() - INTERVAL (i) SECOND, now(), NULL, NULL
      FROM range(${invoices}) t(i)`);
    await duck.run(
      `UPDATE invoices SET bill_to_name = c.name FROM clients c WHERE c.id = invoices.client_id AND invoices.workspace_id = '${ws}'`,
    );
    await duck.run(`INSERT INTO invoice_lines SELECT ${id(5, "i || '-' || j")}, '${ws}', ${id(4, 'i')}, j, 'TIME', NULL, NULL, NULL,
      ${pick(TASK_NAMES, 'i, j, 1')}, ${pick(FIRST_NAMES, 'i, j, 2')} || ' ' || ${pick(LAST_NAMES, 'i, j, 3')},
      strftime(DATE '2024-01-01' + (hash(i, j, 4) % 700)::INTEGER, '%Y-%m-%d'), ${pick(PROJECT_NAMES, 'i, j, 5')},
      NULL, NULL, 0
      FROM range(${invoices}) t(i), range(5) s(j)`);
  }
  await duck.run('CHECKPOINT');
}
