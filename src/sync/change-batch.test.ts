import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeBatch } from './change-batch.ts';
import type { ColumnInfo } from './copied-columns.ts';
import type { DerivedTables } from '../readmodel/derived-tables.ts';

const columns: ColumnInfo[] = [
  { name: 'id', type: 'INTEGER' },
  { name: 'note', type: 'VARCHAR' },
  { name: 'tags', type: 'VARCHAR[]' },
];

describe('ChangeBatch', () => {
  let duck: DuckDBConnection;
  let batch: ChangeBatch;

  beforeEach(async () => {
    duck = await (await DuckDBInstance.create(':memory:')).connect();
    await duck.run('CREATE TABLE notes (id INTEGER, note VARCHAR, tags VARCHAR[])');
    await duck.run(`INSERT INTO notes VALUES (1, 'one', []), (2, 'two', ['a'])`);
    batch = new ChangeBatch(new Map([['notes', columns]]), []);
  });
  afterEach(() => duck.closeSync());

  const rows = async () =>
    (await duck.runAndReadAll('SELECT id, note, tags FROM notes ORDER BY id')).getRowsJS();

  it('writes text exactly: quotes, commas, line breaks, non-ASCII, empty string and NULL', async () => {
    const notes = batch.table('notes');
    notes.upsertRow({ id: '3', note: 'say "hi", then\nleave', tags: '{}' });
    notes.upsertRow({ id: '4', note: 'Zoë 東京 🚀', tags: '{"x,y","q\\"uote",NULL}' });
    notes.upsertRow({ id: '5', note: '', tags: '{}' });
    notes.upsertRow({ id: '6', note: null, tags: '{}' });
    const bytes = Buffer.from('ab"c', 'utf8');
    notes.begin('upsert');
    notes.textField('7');
    notes.bytesField(bytes, 0, bytes.length);
    notes.arrayField('{}');
    notes.end();
    await batch.flush(duck);
    expect((await rows()).slice(2)).toEqual([
      [3, 'say "hi", then\nleave', []],
      [4, 'Zoë 東京 🚀', ['x,y', 'q"uote', null]],
      [5, '', []],
      [6, null, []],
      [7, 'ab"c', []],
    ]);
  });

  it('reads a row far longer than the smallest reader buffer, the buffer following the file', async () => {
    // 300,000 characters of quotes, commas, line breaks, backslashes and non-BMP text: a change
    // file of over 1 MB in one row, read with a buffer of the file's size (csvBufferBytes).
    const note = 'a "q", b\\\nc 🚀 '.repeat(20_000);
    batch.table('notes').upsertRow({ id: '3', note, tags: '{"x,y"}' });
    batch.table('notes').upsertRow({ id: '4', note: 'short', tags: '{}' });
    await batch.flush(duck);
    expect((await rows()).slice(2)).toEqual([
      [3, note, ['x,y']],
      [4, 'short', []],
    ]);
  });

  it('keeps the last change of each key: delete then re-insert, update then delete, a key move', async () => {
    const notes = batch.table('notes');
    notes.deleteKey({ id: '1' });
    notes.upsertRow({ id: '1', note: 'one again', tags: '{}' });
    notes.upsertRow({ id: '2', note: 'two, edited', tags: '{}' });
    notes.deleteKey({ id: '2' });
    // An update that moves key 8 (inserted in this batch) to 9: delete of the old key, new row.
    notes.upsertRow({ id: '8', note: 'moving', tags: '{}' });
    notes.deleteKey({ id: '8' });
    notes.upsertRow({ id: '9', note: 'moved', tags: '{}' });
    expect(batch.size).toBe(7);
    expect(await batch.flush(duck)).toBe(7);
    expect(batch.size).toBe(0);
    expect(await rows()).toEqual([
      [1, 'one again', []],
      [9, 'moved', []],
    ]);
  });

  it('refuses a change without a column of the read model', () => {
    expect(() => batch.table('notes').upsertRow({ id: '3', note: 'x' })).toThrow(
      /lacks column tags/,
    );
    expect(() => batch.table('other')).toThrow(/no table other/);
  });
});

describe('ChangeBatch.lastFlush', () => {
  it('counts the statements and time of each share of a flush: load, apply, each derived part', async () => {
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      await duck.run('CREATE TABLE notes (id INTEGER, note VARCHAR, tags VARCHAR[])');
      await duck.run('CREATE TABLE seen (n INTEGER)');
      const part: DerivedTables = {
        name: 'counter',
        tables: ['seen'],
        sources: { seen: ['notes'] },
        rebuild: async () => undefined,
        batch: () => ({
          beforeApply: async (d) => void (await d.run('INSERT INTO seen VALUES (1)')),
          afterApply: async (d) => void (await d.runAndReadAll('SELECT count(*) FROM seen')),
          finish: async (d) => {
            await d.run('DELETE FROM seen');
            await d.run('SELECT 1');
          },
        }),
      };
      const batch = new ChangeBatch(new Map([['notes', columns]]), [part]);
      expect(batch.lastFlush).toBeUndefined();
      batch.table('notes').upsertRow({ id: '1', note: 'one', tags: '{}' });
      await batch.flush(duck);
      const profile = batch.lastFlush!;
      expect(Object.keys(profile.parts).sort()).toEqual(['apply', 'counter', 'load']);
      expect(profile.parts.counter!.statements).toBe(4);
      expect(profile.parts.apply!.statements).toBe(2);
      // The change file read into its temporary table, and dropped at the end.
      expect(profile.parts.load!.statements).toBe(2);
      expect(profile.total.statements).toBe(8);
      for (const cost of Object.values(profile.parts)) {
        expect(cost.ms).toBeGreaterThan(0);
        expect(cost.cpuMs).toBeGreaterThanOrEqual(0);
      }
      expect(profile.total.ms).toBeGreaterThanOrEqual(
        Object.values(profile.parts).reduce((sum, cost) => sum + cost.ms, 0),
      );
    } finally {
      duck.closeSync();
    }
  });
});

describe('TableChanges.ids', () => {
  const keyed: ColumnInfo[] = [
    { name: 'id', type: 'UUID' },
    { name: 'note', type: 'VARCHAR' },
  ];
  const a = 'A0000000-0000-4000-8000-000000000001';
  const b = 'b0000000-0000-4000-8000-000000000002';

  it('notes the ids of upserts and deletes of a table keyed by id, and hands them to the parts', async () => {
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      await duck.run('CREATE TABLE things (id UUID, note VARCHAR)');
      const seen: (ReadonlySet<string> | undefined)[] = [];
      const part: DerivedTables = {
        name: 'ids',
        tables: [],
        sources: {},
        rebuild: async () => undefined,
        batch: () => ({
          beforeApply: async (_d, _t, _s, ids) => void seen.push(ids && new Set(ids)),
          finish: async () => undefined,
        }),
      };
      const batch = new ChangeBatch(new Map([['things', keyed]]), [part]);
      const things = batch.table('things');
      things.upsertRow({ id: a, note: 'x' });
      const bytes = Buffer.from(b);
      things.begin('delete');
      things.bytesField(bytes, 0, bytes.length);
      things.nullField();
      things.end();
      expect([...things.ids!].sort()).toEqual([a.toLowerCase(), b]);
      await batch.flush(duck);
      expect(seen).toEqual([new Set([a.toLowerCase(), b])]);
      expect(things.ids).toEqual(new Set());
    } finally {
      duck.closeSync();
    }
  });

  it('notes none past a thousand, nor for a table keyed otherwise', () => {
    const members: ColumnInfo[] = [
      { name: 'workspace_id', type: 'UUID' },
      { name: 'user_id', type: 'UUID' },
    ];
    const batch = new ChangeBatch(
      new Map([
        ['things', keyed],
        ['members', members],
      ]),
      [],
    );
    const things = batch.table('things');
    for (let i = 0; i <= 1000; i++)
      things.upsertRow({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, note: '' });
    expect(things.ids).toBeNull();
    batch.table('members').upsertRow({ workspace_id: a, user_id: b });
    expect(batch.table('members').ids).toBeNull();
  });
});
