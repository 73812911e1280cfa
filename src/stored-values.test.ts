import { describe, expect, it } from 'vitest';
import {
  isStorableDate,
  isStorableTimestamp,
  nulPaths,
  storableDate,
  storableTimestamp,
} from './stored-values.ts';

describe('isStorableDate', () => {
  it('takes days that exist in years 0001-9999', () => {
    for (const d of ['0001-01-01', '9999-12-31', '2024-02-29', '2000-02-29', '2026-04-30'])
      expect(isStorableDate(d), d).toBe(true);
  });

  it('refuses year 0, days that do not exist and anything but YYYY-MM-DD', () => {
    for (const d of [
      '0000-01-01',
      '0000-12-31',
      '2026-02-29',
      '1900-02-29',
      '2026-02-30',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '10000-01-01',
      '+10000-01-01',
      '2026-1-01',
      ' 2026-01-01',
      '2026-01-01T00:00:00Z',
      '２０２６-01-01',
    ])
      expect(isStorableDate(d), d).toBe(false);
  });
});

describe('isStorableTimestamp', () => {
  it('takes instants in years 0001-9999 UTC', () => {
    for (const t of [
      '0001-01-01T00:00:00Z',
      '0001-01-01T01:30:00+01:00',
      '9999-12-31T23:59:59.999Z',
      '9999-12-31T18:59:59-05:00',
    ])
      expect(isStorableTimestamp(t), t).toBe(true);
  });

  it('refuses instants in year 0 or 10000 UTC, whatever the offset, and days that do not exist', () => {
    for (const t of [
      '0000-12-31T23:59:59Z',
      '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:00:00-05:00',
      '2026-02-30T10:00:00Z',
      '2026-04-31T00:00:00Z',
    ])
      expect(isStorableTimestamp(t), t).toBe(false);
  });
});

describe('storableDate and storableTimestamp', () => {
  it('give the form message for a bad form and the range message for year 0, once each', () => {
    const date = storableDate('must be a date');
    expect(date.safeParse('2026-02-30').error?.issues.map((i) => i.message)).toEqual([
      'must be a date',
    ]);
    expect(date.safeParse('0000-01-01').error?.issues.map((i) => i.message)).toEqual([
      'must be from 0001-01-01 to 9999-12-31',
    ]);
    const timestamp = storableTimestamp('must be a timestamp');
    expect(timestamp.safeParse('2026-01-01').error?.issues.map((i) => i.message)).toEqual([
      'must be a timestamp',
    ]);
    expect(timestamp.safeParse('0000-01-01T09:00:00Z').error?.issues.map((i) => i.message)).toEqual(
      ['must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z'],
    );
  });
});

describe('nulPaths', () => {
  it('names every string holding U+0000, at any depth, keys included', () => {
    expect(
      nulPaths({
        name: 'a\u0000',
        tags: ['ok', '\u0000'],
        nested: { deep: [{ 'key\u0000': 1, fine: 'x' }] },
        count: 3,
        empty: null,
      }),
    ).toEqual([['name'], ['tags', 1], ['nested', 'deep', 0, 'key\u0000']]);
  });

  it('finds nothing in text without it, other control characters and non-BMP text included', () => {
    expect(nulPaths({ a: 'tab\there, "quotes", back\\slash\n', b: ['😀 𝄞'], c: 'é' })).toEqual([]);
  });
});
