import { once } from 'node:events';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BinaryCopyRows } from '../../src/snapshot/copy-binary.ts';
import { createTestDatabase } from '../support/databases.ts';

/**
 * The binary COPY encoder checked by the reader that matters: PostgreSQL. Each case writes
 * values with the encoder, COPYs them into a column of the type, and reads them back as
 * PostgreSQL's own text for the same value.
 */
describe('binary COPY rows', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url, options: '-c TimeZone=UTC' });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  /** COPYs one value per row into a temp table with one column of `type`; its text back. */
  async function roundTrip<T>(
    type: string,
    values: T[],
    write: (rows: BinaryCopyRows, value: T) => void,
  ): Promise<(string | null)[]> {
    await client.query(`DROP TABLE IF EXISTS t; CREATE TEMP TABLE t (n serial, v ${type})`);
    const rows = new BinaryCopyRows(64);
    for (const value of values) {
      rows.beginRow(1);
      write(rows, value);
    }
    const sink = client.query(copyFrom('COPY t (v) FROM STDIN (FORMAT binary)'));
    const done = once(sink, 'finish');
    sink.end(rows.take());
    await done;
    const { rows: back } = await client.query<{ v: string | null }>(
      'SELECT v::text AS v FROM t ORDER BY n',
    );
    return back.map((r) => r.v);
  }

  it('writes numerics exactly, whatever their digits and sign', async () => {
    const values = [
      '0',
      '-0',
      '0.0000',
      '-0.50',
      '1',
      '10000',
      '100000000',
      '12345678901234.5678',
      '-99999999999999.9999',
      '0.0001',
      '000123.4500',
      '740.25',
      '9999.9999',
      '1.0000000001',
    ];
    const back = await roundTrip('numeric', values, (rows, v) => rows.numeric(v));
    const expected = await client.query<{ v: string }>(
      'SELECT v::numeric::text AS v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n',
      [values],
    );
    expect(back).toEqual(expected.rows.map((r) => r.v));
  });

  it('writes dates and timestamps, around 2000 and far from it', async () => {
    const dates = [
      '2000-01-01',
      '1999-12-31',
      '2000-02-29',
      '1900-03-01',
      '0001-01-01',
      '9999-12-31',
    ];
    expect(await roundTrip('date', dates, (rows, v) => rows.date(v))).toEqual(dates);
    const instants = [
      '2026-10-01T08:15:00.000Z',
      '1999-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
      '2026-10-01T08:15:00+02:00',
      '0001-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ];
    const back = await roundTrip('timestamptz', instants, (rows, v) => rows.timestamptz(v));
    expect(back.map((v) => new Date(`${v!.replace(' ', 'T')}:00`).toISOString())).toEqual(
      instants.map((v) => new Date(v).toISOString()),
    );
  });

  it('writes text that breaks parsers, and NULL apart from "\\N"', async () => {
    const texts = [
      'plain',
      '',
      'tab\there, newline\nthere, return\r, backslash \\ and \\N',
      'quotes "double" \'single\', commas, {braces}',
      'non-BMP 😀 𝄞 and ünïcödé',
      '\\N',
    ];
    const back = await roundTrip('text', [...texts, null], (rows, v) =>
      v === null ? rows.null() : rows.text(v),
    );
    expect(back).toEqual([...texts, null]);
  });

  it('writes uuids in either case, arrays, booleans, integers, bytea and jsonb', async () => {
    expect(
      await roundTrip(
        'uuid',
        ['269bbc35-d559-4e14-a82b-0caba3b7fde0', 'ABCDEF01-2345-6789-ABCD-EF0123456789'],
        (rows, v) => rows.uuid(v),
      ),
    ).toEqual(['269bbc35-d559-4e14-a82b-0caba3b7fde0', 'abcdef01-2345-6789-abcd-ef0123456789']);
    expect(
      await roundTrip(
        'uuid[]',
        [[], ['269bbc35-d559-4e14-a82b-0caba3b7fde0', '00000000-0000-4000-8000-000000000001']],
        (rows, v) => rows.uuidArray(v),
      ),
    ).toEqual([
      '{}',
      '{269bbc35-d559-4e14-a82b-0caba3b7fde0,00000000-0000-4000-8000-000000000001}',
    ]);
    expect(
      await roundTrip('text[]', [[], ['a,b', 'say "hi"', '{x}', 'back\\slash', '😀']], (rows, v) =>
        rows.textArray(v),
      ),
    ).toEqual(['{}', '{"a,b","say \\"hi\\"","{x}","back\\\\slash",😀}']);
    expect(await roundTrip('boolean', [true, false], (rows, v) => rows.bool(v))).toEqual([
      'true',
      'false',
    ]);
    expect(
      await roundTrip('integer', [0, 1, 2_147_483_647, -5], (rows, v) => rows.int4(v)),
    ).toEqual(['0', '1', '2147483647', '-5']);
    expect(await roundTrip('bytea', ['00ff10ab'], (rows, v) => rows.byteaHex(v))).toEqual([
      '\\x00ff10ab',
    ]);
    expect(
      await roundTrip('jsonb', [{ name: 'Ünï "q"\n😀', n: 1.5, list: [null, true] }], (rows, v) =>
        rows.jsonb(v),
      ),
    ).toEqual(['{"n": 1.5, "list": [null, true], "name": "Ünï \\"q\\"\\n😀"}']);
  });

  it('reuses the memory of a COPY stream handed back after it was sent', async () => {
    await client.query('DROP TABLE IF EXISTS t; CREATE TEMP TABLE t (n serial, v text)');
    const rows = new BinaryCopyRows(64);
    const send = async (chunk: Buffer) => {
      const sink = client.query(copyFrom('COPY t (v) FROM STDIN (FORMAT binary)'));
      const done = once(sink, 'finish');
      sink.end(chunk);
      await done;
    };
    const write = (text: string) => {
      rows.beginRow(1);
      rows.text(text);
      return rows.take();
    };
    const first = write('first');
    await send(first);
    rows.recycle(first);
    // The buffer being written when `first` came back is taken next; the one after is first's.
    await send(write('second'));
    const third = write('third');
    expect(third.buffer).toBe(first.buffer);
    await send(third);
    const { rows: back } = await client.query<{ v: string }>('SELECT v FROM t ORDER BY n');
    expect(back.map((r) => r.v)).toEqual(['first', 'second', 'third']);
  });

  it('grows past its first buffer and starts over after take()', async () => {
    const long = 'x'.repeat(100_000);
    expect(await roundTrip('text', [long, 'short'], (rows, v) => rows.text(v))).toEqual([
      long,
      'short',
    ]);
  });
});
