import type { DuckDBConnection } from '@duckdb/node-api';
import type { DerivedBatch } from '../readmodel/derived-tables.ts';
import { clientNameTablesChangedBy, refreshClientNames } from './client-names.ts';
import { wordsSql } from './search-words.ts';
import { IN_PROCESS_RECORDS, refreshTouchedInProcess } from './search-refresh.ts';

/** Read-model tables of the search index: derived in DuckDB, never copied from PostgreSQL. */
export const SEARCH_TABLES = [
  'search_vocabulary',
  'search_postings',
  'search_documents',
  'search_touched',
  'search_fold_chars',
  'search_meta',
] as const;

/** The columns a word's entries are told apart by, besides the word. */
const ENTRY_KEYS = ['entity', 'workspace_id', 'record_id', 'primary_field'];

/** search_vocabulary's columns from `word_id` to `records`, for rows with entity, workspace_id, word, primary_field. */
const vocabularyColumns = (
  wordId: string,
  records: string,
) => `${wordId}, entity, workspace_id, word,
  primary_field, length(word), search_ascii_form(word), search_letters(word), search_code(word),
  search_code(search_reverse(word)),
  search_code(substr(word, 3)), search_code(substr(word, 4)), search_code(substr(word, 5)),
  search_code(substr(word, 6)), ${records}`;

const sameWord = (a: string, b: string) =>
  ['entity', 'workspace_id', 'word', 'primary_field']
    .map((c) => `${a}.${c} = ${b}.${c}`)
    .join(' AND ');

/**
 * Builds the search index from scratch from the read model's tables, inside the caller's open
 * transaction (the first load's, so the index is equal to the rows it is loaded with), and
 * sets the client name kept on every project and invoice (src/search/client-names.ts). Written
 * sorted: vocabulary by entity, workspace and word (word ids in the same order), postings by word
 * id, documents by entity and workspace, which is what lets a search skip row groups.
 */
export async function rebuildSearchIndex(duck: DuckDBConnection): Promise<void> {
  for (const table of ['search_postings', 'search_documents', 'search_vocabulary'])
    await duck.run(`DELETE FROM ${table}`);
  // Every entry once (cutting the text into words is the costly part), then the three tables.
  await createEntries(duck, undefined);
  await duck.run(
    `INSERT INTO search_vocabulary
     SELECT ${vocabularyColumns('row_number() OVER (ORDER BY entity, workspace_id, word, primary_field)', 'count(*)')}
     FROM search_new GROUP BY entity, workspace_id, word, primary_field ORDER BY 1`,
  );
  await duck.run(
    `INSERT INTO search_postings
     SELECT v.word_id, n.record_id, n.created_at, n.live
     FROM search_new n JOIN search_vocabulary v ON ${sameWord('v', 'n')}
     ORDER BY v.word_id`,
  );
  await duck.run('DROP TABLE search_new');
  await duck.run(
    `INSERT INTO search_documents
     SELECT v.entity, v.workspace_id, p.record_id, list(p.word_id ORDER BY p.word_id),
       p.created_at, p.live
     FROM search_postings p JOIN search_vocabulary v USING (word_id)
     GROUP BY v.entity, v.workspace_id, p.record_id, p.created_at, p.live
     ORDER BY v.entity, v.workspace_id, p.record_id`,
  );
  await refreshClientNames(duck, false);
}

/**
 * The temporary table search_new: the index entries (entity, workspace_id, record_id,
 * primary_field, word, and the record's created_at and live) of every record (`touched`
 * undefined), or of those in search_touched, whose entities `touched` lists. The distinct texts
 * are held first: a record's repeated texts are cut into words once, and the folding's
 * correlated subquery would otherwise compute them twice.
 */
async function createEntries(
  duck: DuckDBConnection,
  touched: readonly string[] | undefined,
): Promise<void> {
  const entities =
    touched === undefined ? 'NULL' : `[${touched.map((e) => `'${e}'`).join(', ')}]::VARCHAR[]`;
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE search_texts AS
     SELECT DISTINCT * FROM search_fields(${entities}) WHERE text IS NOT NULL`,
  );
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE search_new AS
     SELECT w.*, r.created_at, r.live
     FROM (${wordsSql('search_texts', ENTRY_KEYS)}) w
     JOIN search_records(${entities}) r USING (entity, record_id)`,
  );
  await duck.run('DROP TABLE search_texts');
}

/**
 * Brings the index entries of the records listed in search_touched (of the entities
 * `touched`) to what their rows say now, inside the caller's open transaction: only the
 * postings that differ are deleted or added (a change that leaves a record's text as it was
 * costs no write), a record whose rows are gone loses its entries, a word no record holds any
 * more leaves the vocabulary. New words get ids past the highest, so they sit after the sorted
 * part until the next full build. A batch that touched few records is refreshed in process
 * instead (search-refresh.ts), to the same entries.
 */
async function refreshTouched(duck: DuckDBConnection, touched: readonly string[]): Promise<void> {
  await createEntries(duck, touched);
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE search_old AS
     SELECT d.record_id, unnest(d.word_ids) AS word_id, d.created_at, d.live
     FROM search_documents d SEMI JOIN search_touched t ON t.entity = d.entity AND t.record_id = d.record_id`,
  );
  // The new entries with the ids of their words, and ids past the highest for new words.
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE search_new_ids AS
     SELECT n.*, v.word_id FROM search_new n LEFT JOIN search_vocabulary v ON ${sameWord('v', 'n')}`,
  );
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE search_new_words AS
     SELECT (SELECT coalesce(max(word_id), 0) FROM search_vocabulary)
         + row_number() OVER (ORDER BY entity, workspace_id, word, primary_field) AS word_id,
       entity, workspace_id, word, primary_field
     FROM (SELECT DISTINCT entity, workspace_id, word, primary_field FROM search_new_ids WHERE word_id IS NULL)`,
  );
  await duck.run(
    `INSERT INTO search_vocabulary SELECT ${vocabularyColumns('word_id', '0')}
     FROM search_new_words ORDER BY word_id`,
  );
  await duck.run(
    `UPDATE search_new_ids n SET word_id = w.word_id FROM search_new_words w
     WHERE n.word_id IS NULL AND ${sameWord('w', 'n')}`,
  );
  // What differs: postings to delete and to add, and the records whose word set changed. A
  // record deleted, restored or given another created_at has all its postings rewritten.
  const posting = 'record_id, word_id, created_at, live';
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE search_removed AS
     SELECT ${posting} FROM search_old EXCEPT SELECT ${posting} FROM search_new_ids`,
  );
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE search_added AS
     SELECT ${posting} FROM search_new_ids EXCEPT SELECT ${posting} FROM search_old`,
  );
  await duck.run(
    `DELETE FROM search_postings p USING search_removed r
     WHERE p.word_id = r.word_id AND p.record_id = r.record_id`,
  );
  await duck.run(
    `INSERT INTO search_postings SELECT word_id, record_id, created_at, live
     FROM search_added ORDER BY word_id`,
  );
  await duck.run(
    `UPDATE search_vocabulary v SET records = v.records + c.delta
     FROM (
       SELECT word_id, CAST(sum(delta) AS INTEGER) AS delta
       FROM (SELECT word_id, 1 AS delta FROM search_added UNION ALL SELECT word_id, -1 FROM search_removed)
       GROUP BY word_id
     ) c
     WHERE v.word_id = c.word_id`,
  );
  await duck.run(
    'DELETE FROM search_vocabulary WHERE records = 0 AND word_id IN (SELECT word_id FROM search_removed)',
  );
  await duck.run(
    `CREATE OR REPLACE TEMP TABLE search_changed AS
     SELECT DISTINCT record_id FROM (SELECT record_id FROM search_removed UNION ALL SELECT record_id FROM search_added)`,
  );
  await duck.run(
    'DELETE FROM search_documents d USING search_changed c WHERE d.record_id = c.record_id',
  );
  await duck.run(
    `INSERT INTO search_documents
     SELECT entity, workspace_id, record_id, list(word_id ORDER BY word_id), created_at, live
     FROM search_new_ids SEMI JOIN search_changed USING (record_id)
     GROUP BY entity, workspace_id, record_id, created_at, live`,
  );
  for (const table of SCRATCH_TABLES) await duck.run(`DROP TABLE ${table}`);
}

/** Temporary tables of a refresh (connection-local, dropped at its end). */
const SCRATCH_TABLES = [
  'search_new',
  'search_old',
  'search_new_ids',
  'search_new_words',
  'search_removed',
  'search_added',
  'search_changed',
];

/** Tables whose changes change some record's searched text. */
export const SEARCHED_TABLES: readonly string[] = [
  'clients',
  'projects',
  'project_members',
  'users',
  'invoices',
  'invoice_lines',
];
const SEARCHED = new Set(SEARCHED_TABLES);

/**
 * Which records a change of each searched table touches, from its change file `source`
 * (columns as text, as ChangeBatch writes them; delete lines carry the key columns only), read
 * after the changes are applied: the record itself, and the records whose text names it, with
 * their workspace (NULL for a record that is gone).
 */
const TOUCHED_AFTER: Record<string, (source: string) => string[]> = {
  // Its projects and invoices show its name: renamedClientsRecords, before the apply.
  clients: (source) => [
    `SELECT 'client', c.workspace_id, k.id FROM (SELECT DISTINCT CAST(id AS UUID) AS id FROM ${source}) k
     LEFT JOIN clients c ON c.id = k.id`,
  ],
  projects: (source) => [
    `SELECT 'project', p.workspace_id, k.id FROM (SELECT DISTINCT CAST(id AS UUID) AS id FROM ${source}) k
     LEFT JOIN projects p ON p.id = k.id`,
  ],
  project_members: (source) => [
    `SELECT 'project', p.workspace_id, k.id FROM (SELECT DISTINCT CAST(project_id AS UUID) AS id FROM ${source}) k
     LEFT JOIN projects p ON p.id = k.id`,
  ],
  users: (source) => [
    `SELECT 'project', pm.workspace_id, pm.project_id FROM project_members pm
     SEMI JOIN ${source} u ON pm.workspace_id = CAST(u.workspace_id AS UUID) AND pm.user_id = CAST(u.id AS UUID)`,
  ],
  invoices: (source) => [
    `SELECT 'invoice', i.workspace_id, k.id FROM (SELECT DISTINCT CAST(id AS UUID) AS id FROM ${source}) k
     LEFT JOIN invoices i ON i.id = k.id`,
  ],
  invoice_lines: (source) => [linesInvoices(source)],
};

/**
 * The projects and invoices of the clients whose name a change file changes or deletes, read
 * before it is applied (old row against each key's last change): a client's name is in their
 * text and their client_name_lower, and nothing else of a client is. A client whose other
 * fields changed touches only itself: on the 2,000-entry workspace, re-indexing a client's
 * projects and invoices (and their lines) with it doubled the search refresh of a PATCH of its
 * notes (p50 373 ms against 187). A
 * project or invoice that a batch gives another client is touched by its own change.
 */
const renamedClientsRecords = (source: string) =>
  `SELECT CAST(CASE WHEN r.kind = 'p' THEN 'project' ELSE 'invoice' END AS search_entity), r.workspace_id, r.id
   FROM (
     SELECT 'p' AS kind, workspace_id, id, client_id FROM projects
     UNION ALL SELECT 'i', workspace_id, id, client_id FROM invoices
   ) r
   SEMI JOIN (
     SELECT c.id FROM clients c JOIN (
       SELECT * FROM ${source} QUALIFY row_number() OVER (PARTITION BY id ORDER BY _seq DESC) = 1
     ) s ON c.id = CAST(s.id AS UUID)
     WHERE s._op = 'd' OR s.name IS DISTINCT FROM c.name
   ) renamed ON r.client_id = renamed.id`;

/** The invoices of the lines a change file names, in the read model as it stands. */
const linesInvoices = (source: string) =>
  `SELECT DISTINCT 'invoice', workspace_id, invoice_id FROM invoice_lines
   WHERE id IN (SELECT CAST(id AS UUID) FROM ${source})`;

/** How the search part follows a batch's touched records (searchIndexPart). */
export interface SearchRefreshOptions {
  /** Touched records refreshed in process at most (IN_PROCESS_RECORDS; 0: every batch by SQL). */
  inProcessUpTo?: number;
  /** Told how each batch's touched records were refreshed. */
  onRefresh?: (how: 'in-process' | 'sql') => void;
}

/**
 * The search index's share of one sync batch flush (ChangeBatch.flush): told about each table's
 * change file before it is applied, then refreshes the touched records once all tables are
 * applied, in the same DuckDB transaction. A flush that touches no searched table costs
 * nothing here (no statement at all).
 */
export class SearchIndexUpdate implements DerivedBatch {
  private readonly sources = new Map<string, string>();

  constructor(private readonly options: SearchRefreshOptions = {}) {}

  /**
   * Before `table`'s change file (readable as `source`) is applied. Invoice lines are looked up
   * here too: a deleted line's change carries only its id, so its invoice is known only before.
   */
  async beforeApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    if (!SEARCHED.has(table)) return;
    this.sources.set(table, source);
    if (table === 'invoice_lines')
      await duck.run(`INSERT INTO search_touched ${linesInvoices(source)}`);
    if (table === 'clients')
      await duck.run(`INSERT INTO search_touched ${renamedClientsRecords(source)}`);
  }

  /** After every table of the flush is applied: refreshes what the changes touched. */
  async finish(duck: DuckDBConnection): Promise<void> {
    if (this.sources.size === 0) return;
    for (const [table, source] of this.sources)
      for (const select of TOUCHED_AFTER[table]!(source))
        await duck.run(`INSERT INTO search_touched ${select}`);
    const names = clientNameTablesChangedBy(this.sources.keys());
    this.sources.clear();
    // The records touched, by entity (a search_entity's values are plain words).
    const touched = new Map(
      (
        await duck.runAndReadAll(
          `SELECT CAST(entity AS VARCHAR), count(DISTINCT record_id) FROM search_touched GROUP BY ALL`,
        )
      )
        .getRows()
        .map(([entity, records]) => [String(entity), Number(records)]),
    );
    if (touched.size === 0) return;
    const entities = [...touched.keys()];
    const records = [...touched.values()].reduce((sum, n) => sum + n, 0);
    const inProcess = records <= (this.options.inProcessUpTo ?? IN_PROCESS_RECORDS);
    if (inProcess) await refreshTouchedInProcess(duck, entities);
    else await refreshTouched(duck, entities);
    this.options.onRefresh?.(inProcess ? 'in-process' : 'sql');
    // Client names are kept on the touched projects and invoices only: none, nothing to do.
    if (!touched.has('project')) names.delete('projects');
    if (!touched.has('invoice')) names.delete('invoices');
    if (names.size > 0) await refreshClientNames(duck, true, names);
    await duck.run('DELETE FROM search_touched');
  }
}
