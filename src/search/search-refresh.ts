import type { DuckDBConnection } from '@duckdb/node-api';
import { sql, type Literal } from '../readmodel/row-writes.ts';
import { readTagged, taggedSql } from '../readmodel/tagged-rows.ts';
import { searchWords } from './normalize.ts';

/**
 * Touched records a sync batch refreshes in process at most; more (a renamed client with many
 * projects and invoices) go through the SQL of refreshTouched. The same bound as the
 * summaries' refreshes.
 */
export const IN_PROCESS_RECORDS = 200;

/** A record's entry: one word of one of its fields (primary or not). */
interface Word {
  entity: string;
  workspaceId: string;
  word: string;
  primary: boolean;
}

/**
 * A record of the index: its words (by wordKey), and the created_at and live its postings
 * carry.
 */
interface IndexedRecord {
  entity: string;
  workspaceId: string;
  words: Set<string>;
  createdAt: string;
  live: string;
}

const wordKey = (w: Word) => JSON.stringify([w.entity, w.workspaceId, w.primary, w.word]);
const keyWord = (key: string): Word => {
  const [entity, workspaceId, primary, word] = JSON.parse(key) as [string, string, boolean, string];
  return { entity, workspaceId, primary, word };
};

/** A TIMESTAMPTZ as DuckDB writes it as text, written back as the same instant. */
const TIMESTAMP_FORM = /^\d{4,}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/;
const timestamp = (text: string): Literal => {
  if (!TIMESTAMP_FORM.test(text)) throw new Error(`Not a timestamp: ${text}`);
  return `'${text}'::TIMESTAMPTZ`;
};
const entityLiteral = (entity: string): Literal => `CAST(${sql.text(entity)} AS search_entity)`;

/**
 * Brings the index entries of the records in search_touched (of `entities`) to what their rows
 * say now, as refreshTouched does, with the words cut in process: one statement reads the
 * touched records' texts, creation times and documents, the vocabulary of their words and the
 * highest word id; a second the vocabulary of the words they did not hold before; the texts are
 * cut into words by searchWords (src/search/normalize.ts, the same words as the index's SQL,
 * tested for every Unicode character); then only what differs is written, each kind in one
 * statement. The SQL path ran about thirty statements for one client, two of them 8-12 ms
 * each to compile the Unicode expressions that cut the words.
 */
export async function refreshTouchedInProcess(
  duck: DuckDBConnection,
  entities: readonly string[],
): Promise<void> {
  const list = `[${entities.map((e) => sql.text(e)).join(', ')}]::VARCHAR[]`;
  const documentsOfTouched = `FROM search_documents d
    SEMI JOIN search_touched t ON t.entity = d.entity AND t.record_id = d.record_id`;
  const read = await readTagged(
    duck,
    taggedSql([
      [
        'f',
        ['entity', 'workspace_id', 'record_id', 'primary_field', 'text'],
        `FROM search_fields(${list}) WHERE text IS NOT NULL`,
      ],
      ['r', ['entity', 'record_id', 'created_at', 'live'], `FROM search_records(${list})`],
      [
        'd',
        ['d.entity', 'd.workspace_id', 'd.record_id', 'd.word_ids', 'd.created_at', 'd.live'],
        documentsOfTouched,
      ],
      [
        'v',
        ['word_id', 'entity', 'workspace_id', 'word', 'primary_field', 'records'],
        `FROM search_vocabulary WHERE word_id IN (SELECT unnest(d.word_ids) ${documentsOfTouched})`,
      ],
      ['m', ['coalesce(max(word_id), 0)'], 'FROM search_vocabulary'],
    ]),
  );

  // The vocabulary as it stands, of the words concerned: by word, its id and record count.
  const vocabulary = new Map<string, { wordId: bigint; records: number }>();
  const keyOfId = new Map<bigint, string>();
  const addVocabulary = (rows: (string | null)[][]) => {
    for (const [id, entity, workspaceId, word, primary, records] of rows) {
      const key = wordKey({
        entity: entity!,
        workspaceId: workspaceId!,
        word: word!,
        primary: primary === 'true',
      });
      vocabulary.set(key, { wordId: BigInt(id!), records: Number(records) });
      keyOfId.set(BigInt(id!), key);
    }
  };
  addVocabulary(read.get('v') ?? []);

  // What the index holds for the touched records (their postings carry the document's
  // created_at and live), and what their rows say now.
  const before = new Map<string, IndexedRecord>();
  for (const [entity, workspaceId, recordId, wordIds, createdAt, live] of read.get('d') ?? []) {
    // A BIGINT[] as text: "[3, 17, 42]".
    const ids = wordIds!
      .slice(1, -1)
      .split(',')
      .filter((id) => id.trim() !== '');
    before.set(recordId!, {
      entity: entity!,
      workspaceId: workspaceId!,
      words: new Set(ids.map((id) => keyOfId.get(BigInt(id.trim()))!)),
      createdAt: createdAt!,
      live: live!,
    });
  }
  const postingsOf = new Map<string, { createdAt: string; live: string }>();
  for (const [, recordId, createdAt, live] of read.get('r') ?? [])
    postingsOf.set(recordId!, { createdAt: createdAt!, live: live! });
  const after = new Map<string, IndexedRecord>();
  for (const [entity, workspaceId, recordId, primary, text] of read.get('f') ?? []) {
    const record = postingsOf.get(recordId!);
    if (record === undefined) continue;
    let indexed = after.get(recordId!);
    if (!indexed) {
      indexed = { entity: entity!, workspaceId: workspaceId!, words: new Set(), ...record };
      after.set(recordId!, indexed);
    }
    for (const word of searchWords(text!))
      indexed.words.add(
        wordKey({ entity: entity!, workspaceId: workspaceId!, word, primary: primary === 'true' }),
      );
  }
  for (const [recordId, indexed] of after) if (indexed.words.size === 0) after.delete(recordId);

  // The vocabulary of words the touched records did not hold before.
  const unknown = [...new Set([...after.values()].flatMap((r) => [...r.words]))].filter(
    (key) => !vocabulary.has(key),
  );
  if (unknown.length > 0) {
    const values = unknown.map((key) => {
      const w = keyWord(key);
      return `(${entityLiteral(w.entity)}, ${sql.uuid(w.workspaceId)}, ${sql.text(w.word)}, ${sql.boolean(w.primary)})`;
    });
    addVocabulary(
      (
        await readTagged(
          duck,
          taggedSql([
            [
              'v',
              ['v.word_id', 'v.entity', 'v.workspace_id', 'v.word', 'v.primary_field', 'v.records'],
              `FROM search_vocabulary v JOIN (VALUES ${values.join(', ')}) AS n(entity, workspace_id, word, primary_field)
               ON v.entity = n.entity AND v.workspace_id = n.workspace_id AND v.word = n.word
                 AND v.primary_field = n.primary_field`,
            ],
          ]),
        )
      ).get('v') ?? [],
    );
  }

  // Postings removed and added: a record deleted, restored or given another created_at has
  // all its postings rewritten (they carry its created_at and live).
  const posting = (recordId: string, key: string, r: IndexedRecord) =>
    JSON.stringify([recordId, key, r.createdAt, r.live]);
  const oldSet = new Set<string>();
  for (const [recordId, record] of before)
    for (const key of record.words) oldSet.add(posting(recordId, key, record));
  const newSet = new Set<string>();
  for (const [recordId, record] of after)
    for (const key of record.words) newSet.add(posting(recordId, key, record));
  const removed = [...oldSet].filter((p) => !newSet.has(p)).map(parsePosting);
  const added = [...newSet].filter((p) => !oldSet.has(p)).map(parsePosting);
  if (removed.length === 0 && added.length === 0) return;

  // Record counts; new words get ids past the highest, ordered as the vocabulary is sorted.
  const delta = new Map<string, number>();
  for (const p of removed) delta.set(p.key, (delta.get(p.key) ?? 0) - 1);
  for (const p of added) delta.set(p.key, (delta.get(p.key) ?? 0) + 1);
  let nextId = BigInt(read.get('m')![0]![0]!);
  const newWords = new Set([...delta.keys()].filter((key) => !vocabulary.has(key)).sort(byWord));
  for (const key of newWords) vocabulary.set(key, { wordId: ++nextId, records: 0 });
  const inserts: string[] = [];
  const updates: string[] = [];
  const gone: bigint[] = [];
  for (const [key, change] of delta) {
    const known = vocabulary.get(key)!;
    const records = known.records + change;
    if (newWords.has(key)) {
      const w = keyWord(key);
      inserts.push(
        `(${known.wordId}::BIGINT, ${entityLiteral(w.entity)}, ${sql.uuid(w.workspaceId)}, ${sql.text(w.word)}, ${sql.boolean(w.primary)}, ${records}::INTEGER)`,
      );
    } else if (records === 0) gone.push(known.wordId);
    else if (change !== 0) updates.push(`(${known.wordId}::BIGINT, ${records}::INTEGER)`);
  }
  if (inserts.length > 0)
    await duck.run(
      `INSERT INTO search_vocabulary
       SELECT word_id, entity, workspace_id, word, primary_field, length(word), search_ascii_form(word),
         search_letters(word), search_code(word), search_code(search_reverse(word)),
         search_code(substr(word, 3)), search_code(substr(word, 4)), search_code(substr(word, 5)),
         search_code(substr(word, 6)), records
       FROM (VALUES ${inserts.join(', ')}) AS n(word_id, entity, workspace_id, word, primary_field, records)
       ORDER BY word_id`,
    );
  if (updates.length > 0)
    await duck.run(
      `UPDATE search_vocabulary v SET records = s.records
       FROM (VALUES ${updates.join(', ')}) AS s(word_id, records) WHERE v.word_id = s.word_id`,
    );
  if (gone.length > 0)
    await duck.run(
      `DELETE FROM search_vocabulary WHERE word_id IN (${gone.map((id) => `${id}::BIGINT`).join(', ')})`,
    );
  if (removed.length > 0)
    await duck.run(
      `DELETE FROM search_postings p
       USING (VALUES ${removed.map((p) => `(${vocabulary.get(p.key)!.wordId}::BIGINT, ${sql.uuid(p.recordId)})`).join(', ')}) AS r(word_id, record_id)
       WHERE p.word_id = r.word_id AND p.record_id = r.record_id`,
    );
  if (added.length > 0)
    await duck.run(
      `INSERT INTO search_postings (word_id, record_id, created_at, live) VALUES ${added
        .map((p) => ({ ...p, wordId: vocabulary.get(p.key)!.wordId }))
        .sort((a, b) => (a.wordId < b.wordId ? -1 : a.wordId > b.wordId ? 1 : 0))
        .map(
          (p) =>
            `(${p.wordId}::BIGINT, ${sql.uuid(p.recordId)}, ${timestamp(p.createdAt)}, ${sql.boolean(p.live === 'true')})`,
        )
        .join(', ')}`,
    );
  // The documents of the records whose postings changed, written anew.
  const changed = [...new Set([...removed, ...added].map((p) => p.recordId))];
  await duck.run(
    `DELETE FROM search_documents WHERE record_id IN (${changed.map((id) => sql.uuid(id)).join(', ')})`,
  );
  const documents = changed.flatMap((recordId) => {
    const record = after.get(recordId);
    if (!record) return [];
    const ids = [...record.words]
      .map((key) => vocabulary.get(key)!.wordId)
      .sort((a, b) => (a < b ? -1 : 1));
    return [
      `(${entityLiteral(record.entity)}, ${sql.uuid(record.workspaceId)}, ${sql.uuid(recordId)}, [${ids.map((id) => `${id}::BIGINT`).join(', ')}]::BIGINT[], ${timestamp(record.createdAt)}, ${sql.boolean(record.live === 'true')})`,
    ];
  });
  if (documents.length > 0)
    await duck.run(`INSERT INTO search_documents VALUES ${documents.join(', ')}`);
}

const parsePosting = (text: string) => {
  const [recordId, key, createdAt, live] = JSON.parse(text) as [string, string, string, string];
  return { recordId, key, createdAt, live };
};

/** Words in the order of the vocabulary's columns: entity, workspace, word, primary field. */
function byWord(a: string, b: string): number {
  const x = keyWord(a);
  const y = keyWord(b);
  return (
    ENTITY_ORDER.indexOf(x.entity) - ENTITY_ORDER.indexOf(y.entity) ||
    compare(x.workspaceId, y.workspaceId) ||
    compare(x.word, y.word) ||
    Number(x.primary) - Number(y.primary)
  );
}
const ENTITY_ORDER = ['client', 'project', 'invoice'];
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
