// The search normalization and match helpers in TypeScript, for the search text: the same
// results as the DuckDB macros of src/search/sql/search.sql the index is built with, which
// test/search/search-normalize.test.ts checks for every Unicode character and random texts. A search
// then needs no round trip to DuckDB to cut its text into terms.
import { DUCKDB_UNKNOWN_CHARACTERS } from './duckdb-unicode.ts';

const codePoint = (hex: string) => `\\u{${hex}}`;
/** The characters DuckDB does not know (generated list of hex code points and ranges). */
const DUCKDB_UNKNOWN = new RegExp(
  `[${DUCKDB_UNKNOWN_CHARACTERS.split(' ')
    .filter((item) => item !== '')
    .map((item) => item.split('-').map(codePoint).join('-'))
    .join('')}]`,
  'gu',
);

/**
 * The words of `text` (distinct, in order of appearance): NFKD, marks stripped, case-folded,
 * split on everything that is not a Unicode letter or digit. Characters DuckDB's Unicode
 * tables do not know (`unknown`, generated) split words, as they do in DuckDB.
 */
export function searchWords(text: string, unknown: RegExp = DUCKDB_UNKNOWN): string[] {
  const folded = text
    .replace(unknown, ' ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/ς/g, 'σ');
  return [...new Set(folded.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== ''))];
}

/** search_code(): the first three characters as one integer, 17 bits each (0 past the end). */
export function searchCode(text: string): number {
  const chars = [...text];
  let code = 0;
  for (let i = 0; i < 3; i++)
    code = code * 2 ** 17 + Math.min(chars[i]?.codePointAt(0) ?? 0, 2 ** 17 - 1);
  return code;
}

/** The highest search_code() of a string starting with the first n (1-3) characters of `text`. */
export function searchCodeHigh(text: string, n: number): number {
  return searchCode([...text].slice(0, n).join('')) + 2 ** (17 * (3 - n)) - 1;
}

/** search_letters(): the word's characters as bits (a-z 0-25, 0-9 26-35, others 36 + code % 16). */
export function searchLetters(word: string): number {
  const bits = new Set<number>();
  for (const char of word) {
    const cp = char.codePointAt(0)!;
    bits.add(cp >= 97 && cp <= 122 ? cp - 97 : cp >= 48 && cp <= 57 ? cp - 22 : 36 + (cp % 16));
  }
  // A sum, not |: JavaScript's bitwise operators work on 32 bits.
  return [...bits].reduce((letters, bit) => letters + 2 ** bit, 0);
}

/** search_allowed_distance(): 1 for 3-7 characters, 2 for 8 or more. */
export const allowedDistance = (length: number): number => (length >= 8 ? 2 : 1);

/** search_head_anchor(): the length of the head (and, for distance 2, tail) anchor. */
export const headAnchor = (length: number): number =>
  length >= 8 ? Math.min(3, Math.floor((length - 4) / 2)) : Math.min(3, Math.floor(length / 2));

/** search_tail_anchor(). */
export const tailAnchor = (length: number): number =>
  length >= 8 ? headAnchor(length) : Math.min(3, length - headAnchor(length) - 1);

/** search_middle(): the middle anchor of a term of 8 or more characters. */
export function middleAnchor(term: string): string {
  const chars = [...term];
  const p = headAnchor(chars.length);
  return chars.slice(p + 1, chars.length - p - 1).join('');
}
