import { sqlLiteral } from '../readmodel/sql-params.ts';
import {
  allowedDistance,
  headAnchor,
  middleAnchor,
  searchCode,
  searchCodeHigh,
  searchLetters,
  searchWords,
  tailAnchor,
} from './normalize.ts';

/** The records GET /clients, /projects and /invoices search. */
export type SearchEntity = 'client' | 'project' | 'invoice';
const ENTITIES: ReadonlySet<string> = new Set<SearchEntity>(['client', 'project', 'invoice']);

/** A search to run inside the caller's query. */
export interface SearchQuery {
  /**
   * A SELECT yielding `record_id UUID, rank INTEGER, created_at TIMESTAMPTZ, live BOOLEAN`:
   * one row per record of the entity in the workspace that matches every term, deleted records
   * included (the caller filters them, or keeps those `live`). A smaller rank is better; ties
   * are the caller's to break with its default sort. `created_at` and `live` are the record's,
   * as the index keeps them: enough to choose a page sorted by creation without reading the
   * entity's table.
   */
  sql: string;
  /**
   * Its named parameters, all prefixed `search_`: merge them with the query's own. Usually
   * none: the workspace id, the codes and the terms (letters and digits) are literals.
   */
  params: Record<string, string | number>;
  /** The normalized terms, distinct and sorted. */
  terms: string[];
}

/**
 * The search of `text` among one entity's records in one workspace (docs/contract.md, "Search"):
 * every term must match; a term of 1-2 characters matches a word prefix of the primary field, a
 * longer one a word prefix of any searched field or a word within Damerau-Levenshtein distance 1
 * (3-7 characters) or 2 (8 or more). A record's rank is the sum over the terms of the term's
 * best kind * 2 + field (kind 0 exact word, 1 prefix, 2 typo; field 0 primary, 1 other), so
 * exact beats prefix beats typo, and primary beats other for each term. See docs/search.md.
 * Null when the text has no term (empty, or punctuation only).
 *
 * @example
 * const search = searchQuery('client', workspaceId, query.search);
 * if (search) {
 *   const reader = await duck.runAndReadAll(
 *     `WITH search AS (${search.sql})
 *      SELECT c.*, s.rank FROM clients c JOIN search s ON s.record_id = c.id
 *      WHERE c.workspace_id = $workspace_id AND c.deleted_at IS NULL
 *      ORDER BY s.rank, c.created_at DESC, c.id DESC LIMIT 51`,
 *     { ...search.params, workspace_id: workspaceId },
 *   );
 * }
 */
export function searchQuery(
  entity: SearchEntity,
  workspaceId: string,
  text: string,
): SearchQuery | null {
  if (!ENTITIES.has(entity)) throw new Error(`Unknown search entity ${String(entity)}`);
  const terms = searchWords(text).sort();
  if (terms.length === 0) return null;
  const params: SearchQuery['params'] = {};
  // The workspace as a literal when it has the form of an id (it always has: the caller's),
  // else bound. The entity is one of three names, cast to the ENUM: compared with a plain
  // text literal, DuckDB would cast every row's entity to text instead.
  let workspace = sqlLiteral(workspaceId, 'UUID');
  if (workspace === null) {
    params.search_workspace_id = workspaceId;
    workspace = 'CAST($search_workspace_id AS UUID)';
  }
  const matches = terms.map((term, i) => {
    const match = termMatches(i, term, `CAST('${entity}' AS search_entity)`, workspace);
    Object.assign(params, match.params);
    return match.sql;
  });
  // One aggregation: per record, each term's best rank (NULL when the term does not match).
  // With one term every posting joined is that term's, so each record's best is a plain min
  // and every record matches: no FILTER, no HAVING, 0.5-0.7 ms less on the benchmark's
  // searches (docs/search.md).
  const oneTerm = terms.length === 1;
  const best = oneTerm
    ? ['min(m.rank)']
    : terms.map((_, i) => `min(m.rank) FILTER (WHERE m.term = ${i})`);
  const having = oneTerm ? '' : `\nHAVING ${best.map((b) => `${b} IS NOT NULL`).join(' AND ')}`;
  const sql = `SELECT p.record_id, CAST(${best.join(' + ')} AS INTEGER) AS rank,
  max(p.created_at) AS created_at, bool_and(p.live) AS live
FROM (
    ${matches.join('\n    UNION ALL ')}
  ) m
JOIN search_postings p ON p.word_id = m.word_id
GROUP BY p.record_id${having}`;
  return { sql, params, terms };
}

/** A term as searchWords cuts it: letters and digits only. */
const TERM = /^[\p{L}\p{N}]+$/u;

/**
 * One term's matching vocabulary words with the term's rank for them (kind * 2 + field). The
 * candidates come from one scan per anchor (src/search/sql/search.sql), each filtering on a range
 * of one code column, a constant DuckDB pushes into the scan; the match test runs on them only.
 * The term and the numbers are literals of the text (a term is letters and digits only, which
 * is checked): bound, DuckDB would bind the statement twice (see sqlLiteral).
 */
function termMatches(
  index: number,
  term: string,
  entity: string,
  workspace: string,
): { sql: string; params: SearchQuery['params'] } {
  const p = `search_${index}_`;
  const params: SearchQuery['params'] = {};
  // A term that is not letters and digits (never, from searchWords) is bound instead.
  let termSql = `'${term}'`;
  if (!TERM.test(term)) {
    params[`${p}term`] = term;
    termSql = `CAST($${p}term AS VARCHAR)`;
  }
  // Numbers stay below 2^53 (search_code, search_letters): exact as integer literals.
  const num = (value: number) => {
    if (!Number.isSafeInteger(value)) throw new Error(`search code ${value} is not an integer`);
    return `CAST(${value} AS BIGINT)`;
  };
  const chars = [...term];
  const scan = (filter: string) =>
    `SELECT word_id, word, primary_field, word_length, letters, ascii_form FROM search_vocabulary
      WHERE entity = ${entity} AND workspace_id = ${workspace} AND ${filter}`;
  const rank = (kind: string) => `${kind} + CASE WHEN primary_field THEN 0 ELSE 1 END`;
  if (chars.length <= 2) {
    const low = num(searchCode(term));
    const high = num(searchCodeHigh(term, chars.length));
    return {
      sql: `SELECT ${index} AS term, word_id, ${rank(`CASE WHEN word = ${termSql} THEN 0 ELSE 2 END`)} AS rank
      FROM (${scan(`primary_field AND head BETWEEN ${low} AND ${high}`)})`,
      params,
    };
  }
  const d = allowedDistance(chars.length);
  const lengths = `word_length BETWEEN ${num(chars.length - d)} AND ${num(chars.length + d)}`;
  const head = headAnchor(chars.length);
  const tail = tailAnchor(chars.length);
  const reversed = [...chars].reverse();
  const candidates = [
    // Exact words and word prefixes, and typos that keep the head anchor.
    scan(
      `head BETWEEN ${num(searchCode(chars.slice(0, head).join('')))}
        AND ${num(searchCodeHigh(term, head))}`,
    ),
    // Typos that keep the tail anchor.
    scan(
      `tail BETWEEN ${num(searchCode(reversed.slice(0, tail).join('')))}
        AND ${num(searchCodeHigh(reversed.join(''), tail))} AND ${lengths}`,
    ),
  ];
  if (d === 2) {
    // Typos that keep the middle, at offset head, head + 1 or head + 2 (gram<k>: the code of
    // the word from offset k; head is 2 or 3 here).
    const middle = [...middleAnchor(term)];
    const n = Math.min(3, middle.length);
    const low = num(searchCode(middle.slice(0, n).join('')));
    const high = num(searchCodeHigh(middle.join(''), n));
    for (const shift of [0, 1, 2])
      candidates.push(scan(`gram${head + shift} BETWEEN ${low} AND ${high} AND ${lengths}`));
  }
  // The word has at most d characters the term lacks, and lacks at most d of the term's (see
  // search_letters): bits outside the term's set, and bits of it, counted. Written with the
  // complement worked out here, which DuckDB plans faster than the bit arithmetic in SQL.
  const letters = BigInt(searchLetters(term));
  const setBits = [...letters.toString(2)].filter((bit) => bit === '1').length;
  // The distance in characters (search.sql): for an ASCII term, damerau_levenshtein() of the
  // word's ASCII form, much cheaper to plan than search_distance().
  const distance = /^\p{ASCII}*$/u.test(term)
    ? `damerau_levenshtein(coalesce(ascii_form, word), ${termSql})`
    : `search_distance(word, ${termSql})`;
  const sql = `SELECT ${index} AS term, word_id,
      ${rank(`CASE WHEN word = ${termSql} THEN 0 WHEN starts_with(word, ${termSql}) THEN 2 ELSE 4 END`)} AS rank
    FROM (
      ${candidates.join('\n      UNION ALL ')}
    )
    WHERE starts_with(word, ${termSql})
      OR (${lengths}
        AND bit_count(letters & ${~letters}) <= ${d}
        AND bit_count(letters & ${letters}) >= ${setBits - d}
        AND ${distance} <= ${d})`;
  return { sql, params };
}
