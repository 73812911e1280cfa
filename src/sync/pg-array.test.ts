import { describe, expect, it } from 'vitest';
import { parsePgArray } from './pg-array.ts';
import { formatLsn, parseLsn } from './lsn.ts';

describe('PostgreSQL array literals', () => {
  it.each<[string, (string | null)[]]>([
    ['{}', []],
    ['{a}', ['a']],
    ['{a,b}', ['a', 'b']],
    ['{"a,b","say \\"hi\\"","back\\\\slash"}', ['a,b', 'say "hi"', 'back\\slash']],
    ['{NULL,"NULL",x}', [null, 'NULL', 'x']],
    ['{"",b}', ['', 'b']],
  ])('parses %s', (text, expected) => {
    expect(parsePgArray(text)).toEqual(expected);
  });
});

describe('LSNs', () => {
  it('round-trips and orders as numbers, not text', () => {
    expect(formatLsn(parseLsn('16/B374D848'))).toBe('16/B374D848');
    expect(parseLsn('0/FFFFFFFF') < parseLsn('1/0')).toBe(true);
    expect(parseLsn('9/0') < parseLsn('10/0')).toBe(true);
  });
});
