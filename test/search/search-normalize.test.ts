import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { compatibilityFoldings, duckdbUnicodeTs, foldingSql } from '../../src/search/folding.ts';
import { searchCode, searchLetters, searchWords } from '../../src/search/normalize.ts';
import { wordsSql } from '../../src/search/search-words.ts';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

// The search text is cut into terms in TypeScript (normalize.ts), the index in DuckDB
// (search-words.ts, src/search/sql/search.sql): both must give the same words for any text.

const SQL_DIR = path.resolve(import.meta.dirname, '../../src/search/sql');

/** Characters that exercise every step: accents, compatibility forms, case, scripts, marks. */
const TRICKY = [
  ...'aZ09 -_.,@/\'"\t',
  ...'éÉñÑüÜøØłŁæÆßẞıİĳŉǆǅſ',
  'e\u0301',
  'o\u0308',
  '\u0301',
  '\u0327',
  ...'ﬁﬀﬃＦｕ０９²³½¼Ⅻⅻ①⑩⒜㎏™℃№\u00a0\u2009…ｶﾞ',
  ...'ΣσςΑΐΰϐϑ',
  ...'ЮрийЁё',
  ...'가각힣각ㄱㅏ',
  ...'東京漢字',
  ...'ﷺلا',
  'क्षि',
  'ों',
  '\u{1c89}',
  '\u{1c8a}',
  '\u{10d40}',
  '\u{1acf}',
  '😀',
  '𝐀',
  '𝟘',
];

describe('search normalization: TypeScript and DuckDB agree', () => {
  let readModel: ReadModel;
  let duck: DuckDBConnection;

  /** DuckDB's words of each text (sorted), through the index's own SQL. */
  const duckdbWords = async (texts: string[]): Promise<string[][]> => {
    await duck.run('CREATE OR REPLACE TEMP TABLE texts (n INTEGER, text VARCHAR)');
    const appender = await duck.createAppender('texts', 'main', 'temp');
    texts.forEach((text, n) => {
      appender.appendInteger(n);
      appender.appendVarchar(text);
      appender.endRow();
    });
    appender.closeSync();
    const reader = await duck.runAndReadAll(
      `SELECT n, list(word ORDER BY word) FROM (${wordsSql('texts', ['n'])}) GROUP BY n`,
    );
    const words: string[][] = texts.map(() => []);
    for (const [n, list] of reader.getRows())
      words[n as number] = (list as { items: string[] }).items;
    return words;
  };
  const sorted = (words: string[]) => [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  beforeAll(async () => {
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
  });
  afterAll(() => {
    duck.closeSync();
    readModel.close();
  });

  it('cuts every Unicode character the same, between two letters', async () => {
    const chars: string[] = [];
    for (let cp = 1; cp <= 0x10ffff; cp++)
      if (cp < 0xd800 || cp > 0xdfff) chars.push(String.fromCodePoint(cp));
    const texts = chars.map((c) => `a${c}b`);
    const sql = await duckdbWords(texts);
    const differing = texts.filter(
      (t, i) => sorted(searchWords(t)).join(' ') !== sql[i]!.join(' '),
    );
    expect(differing.map((t) => `U+${t.codePointAt(1)!.toString(16)}`)).toEqual([]);

    // duckdb-unicode.ts lists exactly the characters DuckDB splits on and this Node does not.
    const unknown = texts
      .map((t, i) => [t, sql[i]!] as const)
      .filter(([t, words]) => words.join(' ') === 'a b' && searchWords(t, /$^/u).length !== 2)
      .map(([t]) => t.codePointAt(1)!);
    const file = await readFile(
      path.join(import.meta.dirname, '../../src/search/duckdb-unicode.ts'),
      'utf8',
    );
    const generated = duckdbUnicodeTs(unknown);
    // Only a Node of the Unicode version the file was made with lists the same characters.
    if (file.split('\n')[0] === generated.split('\n')[0]) expect(file).toEqual(generated);
  }, 120_000);

  it('cuts random texts of tricky characters the same', async () => {
    const texts = fc.sample(
      fc.array(fc.constantFrom(...TRICKY), { maxLength: 24 }).map((parts) => parts.join('')),
      { seed: 20260101, numRuns: 3000 },
    );
    const sql = await duckdbWords(texts);
    for (const [i, text] of texts.entries())
      expect(sorted(searchWords(text)), JSON.stringify(text)).toEqual(sql[i]);
  });

  it('computes the match helpers of a word the same (codes of the head, tail and grams; letters)', async () => {
    const words = [
      ...new Set(
        fc
          .sample(fc.array(fc.constantFrom(...TRICKY), { minLength: 1, maxLength: 12 }), {
            seed: 7,
            numRuns: 2000,
          })
          .flatMap((parts) => searchWords(parts.join(''))),
      ),
    ];
    await duck.run('CREATE OR REPLACE TEMP TABLE words (n INTEGER, word VARCHAR)');
    const appender = await duck.createAppender('words', 'main', 'temp');
    words.forEach((word, n) => {
      appender.appendInteger(n);
      appender.appendVarchar(word);
      appender.endRow();
    });
    appender.closeSync();
    const reader = await duck.runAndReadAll(
      `SELECT n, search_code(word), search_code(search_reverse(word)), search_code(substr(word, 4)),
              search_letters(word)
       FROM words ORDER BY n`,
    );
    for (const [n, head, tail, gram3, letters] of reader.getRows()) {
      const word = words[n as number]!;
      const chars = [...word];
      expect([head, tail, gram3, letters].map(Number), word).toEqual([
        searchCode(word),
        searchCode(chars.reverse().join('')),
        searchCode([...word].slice(3).join('')),
        searchLetters(word),
      ]);
    }
  });

  it("src/search/sql/search-folding.sql is what this Node's Unicode data generates", async () => {
    const file = await readFile(path.join(SQL_DIR, 'search-folding.sql'), 'utf8');
    const generated = foldingSql(compatibilityFoldings());
    // Generated under another Unicode version, the file differs in its data (the agreement
    // tests above are what must hold); under the same one it must be equal.
    if (file.split('\n')[0] === generated.split('\n')[0]) expect(file).toEqual(generated);
    expect(file).toContain('CREATE OR REPLACE MACRO search_needs_folding');
  });
});
