import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDecimal, Money, percentE4 } from '../../src/money/money.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/**
 * The 64-bit money macros of sql/duckdb/macros.sql that the profitability report prices every
 * row with, against decimal.js: exact and half away from zero, on their BIGINT path and on the
 * HUGEINT path they take for products too large for 64 bits. Each property checks a batch of
 * random cases in one query (planning a query costs more than computing a thousand rows).
 */
let readModel: ReadModel;
let connection: DuckDBConnection;
beforeAll(async () => {
  readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
  connection = await readModel.connect();
});
afterAll(() => {
  connection.closeSync();
  readModel.close();
});

const SAMPLES = 1000;

/** A DECIMAL(18,4) amount as text: small ones often, up to 14 integer digits. */
const amount = fc
  .oneof(
    fc.bigInt({ min: -10_000_000n, max: 10_000_000n }),
    fc.bigInt({ min: -(10n ** 18n) + 1n, max: 10n ** 18n - 1n }),
  )
  .map((e4) => new Money(e4.toString()).div(10_000).toFixed(4));
const rate = fc
  .bigInt({ min: 1n, max: 10n ** 14n })
  .map((e10) => new Money(e10.toString()).div(1e10).toFixed(10));
const scale = fc.constantFrom(0, 2, 3);

/** The count of 10^-4 units of a DECIMAL(18,4) amount's text. */
const e4Of = (text: string) => BigInt(new Money(text).mul(10_000).toFixed(0));
const half = (d: Money, places: number) => d.toDecimalPlaces(places, Money.ROUND_HALF_UP);
/**
 * Results are HUGEINT counts of 10^-4 (below 1.7 x 10^38): any product of two amounts over a
 * third, or an amount at any FX rate, fits, far beyond what BIGINT holds (9.2 x 10^14 units).
 */
const fits = (d: Money) => d.abs().lt(1e30);

/**
 * Evaluates `expression` for each case, as text: columns a and b are DECIMAL(18,4), c is text
 * (the expression casts it), s is an INTEGER scale.
 */
async function evaluate(expression: string, cases: [string, string, string, number][]) {
  const column = (i: number) => listValue(cases.map((c) => String(c[i])));
  const reader = await connection.runAndReadAll(
    `SELECT CAST(${expression} AS VARCHAR) AS v
     FROM (
       SELECT
         unnest($a::VARCHAR[])::DECIMAL(18,4) AS a, unnest($b::VARCHAR[])::DECIMAL(18,4) AS b,
         unnest($c::VARCHAR[]) AS c, unnest($s::VARCHAR[])::INTEGER AS s,
         unnest(range($n::BIGINT)) AS i
     )
     ORDER BY i`,
    { a: column(0), b: column(1), c: column(2), s: column(3), n: cases.length },
  );
  return reader.getRowObjectsJson().map((row) => {
    if (typeof row.v !== 'string') throw new Error(`expected text, got ${JSON.stringify(row.v)}`);
    return row.v;
  });
}

function expectAll(
  cases: [string, string, string, number][],
  got: string[],
  want: (c: [string, string, string, number]) => Money | string,
) {
  const wrong = cases
    .map((c, i) => ({ c, got: got[i]!, want: want(c) }))
    .filter(({ got, want }) =>
      typeof want === 'string' ? got !== want : !new Money(got).eq(want),
    );
  expect(wrong.slice(0, 3)).toEqual([]);
}

describe('money macros (docs/contract.md, "Money and rounding": exact, half away from zero)', () => {
  it('money_e4 and money_of_e4 round-trip every DECIMAL(18,4) value', async () => {
    const cases = fc.sample(fc.tuple(amount, amount, rate, scale), SAMPLES);
    expectAll(cases, await evaluate('money_of_e4(money_e4(a))', cases), ([a]) => a);
  });

  it('e4_share rounds amount x part / whole once, to the currency', async () => {
    const cases = fc
      .sample(fc.tuple(amount, amount, amount, scale), SAMPLES)
      .filter(([a, p, w]) => !new Money(w).isZero() && fits(new Money(a).mul(p).div(w)))
      .map(([a, p, w, s]): [string, string, string, number] => [a, p, w, s]);
    const got = await evaluate(
      'money_of_e4(e4_share(money_e4(a), money_e4(b), money_e4(CAST(c AS DECIMAL(18, 4))), unit_e4(s)))',
      cases,
    );
    expectAll(cases, got, ([a, p, w, s]) => half(new Money(a).mul(p).div(w), s));
  });

  it('e4_share_capped pays at most the whole amount, and nothing when whole is 0', async () => {
    const cases = fc
      .sample(fc.tuple(amount, amount, fc.oneof(amount, fc.constant('0.0000')), scale), SAMPLES)
      .filter(([a, p, w]) => new Money(w).isZero() || fits(new Money(a).mul(p).div(w)));
    // An exact half whose share p / w does not end (found by an earlier run of this property).
    cases.push(['0.0003', '-11150632605389.5130', '0.0006', 3]);
    const got = await evaluate(
      'money_of_e4(e4_share_capped(money_e4(a), money_e4(b), money_e4(CAST(c AS DECIMAL(18, 4))), unit_e4(s)))',
      cases,
    );
    expectAll(cases, got, ([a, p, w, s]) => {
      const whole = new Money(w);
      if (whole.isZero()) return new Money(0);
      // a x min(p / w, 1), multiplied before dividing: p / w alone may not end (p / 0.0006),
      // and cut to any precision it can turn an exact half (…694.7565) into …694.75649999.
      const capped = new Money(p).div(whole).gte(1);
      return half(capped ? new Money(a) : new Money(a).mul(p).div(whole), s);
    });
  });

  it('e4_convert multiplies at the rate’s full precision and rounds once', async () => {
    const cases = fc
      .sample(fc.tuple(amount, amount, rate, scale), SAMPLES)
      .filter(([a, , r]) => fits(new Money(a).mul(r)));
    const got = await evaluate(
      'money_of_e4(e4_convert(money_e4(a), rate_e10(CAST(c AS DECIMAL(18, 10))), unit_e4(s)))',
      cases,
    );
    expectAll(cases, got, ([a, , r, s]) => half(new Money(a).mul(r), s));
  });

  it('percentE4 gives two decimals, half away from zero', () => {
    const cases = fc
      .sample(fc.tuple(amount, amount), SAMPLES)
      .filter(([m, b]) => !new Money(b).isZero() && fits(new Money(m).mul(100).div(b)));
    for (const [m, b] of cases)
      expect(percentE4(e4Of(m), e4Of(b))).toBe(half(new Money(m).mul(100).div(b), 2).toFixed(2));
  });

  it('e4_text prints a count of 10^-4 units as formatDecimal does, at every scale', async () => {
    // c: the count as text, up to 18 digits; s: the scale, 0 to 4.
    const count = fc.oneof(
      fc.bigInt({ min: -100_000n, max: 100_000n }),
      fc.bigInt({ min: -(10n ** 18n) + 1n, max: 10n ** 18n - 1n }),
    );
    const cases = fc
      .sample(fc.tuple(count, fc.integer({ min: 0, max: 4 })), SAMPLES)
      .map(([e4, s]): [string, string, string, number] => ['0', '0', e4.toString(), s]);
    // Halves on both sides, and amounts that round to zero (never "-0.00").
    for (const e4 of ['50', '-50', '49', '-49', '-1', '0', '5000', '-5000']) {
      for (const s of [0, 2, 3]) cases.push(['0', '0', e4, s]);
    }
    const got = await evaluate('e4_text(CAST(c AS BIGINT), s)', cases);
    expectAll(cases, got, ([, , e4, s]) => formatDecimal(new Money(e4).div(10_000).toFixed(4), s));
  });

  it('e4_text prints counts of 10^18 and more, as a report’s sums can be, on its 128-bit path', async () => {
    const count = fc.oneof(
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
      fc.bigInt({ min: 10n ** 18n - 100n, max: 10n ** 18n + 100n }),
      fc.bigInt({ min: -(10n ** 18n) - 100n, max: -(10n ** 18n) + 100n }),
    );
    const cases = fc
      .sample(fc.tuple(count, fc.integer({ min: 0, max: 4 })), SAMPLES)
      .map(([e4, s]): [string, string, string, number] => ['0', '0', e4.toString(), s]);
    for (const e4 of ['9999999999999999990', '-9999999999999999950', '10000000000000000050']) {
      for (const s of [0, 2, 3]) cases.push(['0', '0', e4, s]);
    }
    const want = ([, , e4, s]: [string, string, string, number]) =>
      formatDecimal(new Money(e4).div(10_000).toFixed(4), s);
    // The report passes its sums as text; the cells' sums are HUGEINT.
    expectAll(cases, await evaluate('e4_text(c, s)', cases), want);
    expectAll(cases, await evaluate('e4_text(CAST(c AS HUGEINT), s)', cases), want);
  });

  it('e4_parts and e4_part store a cell’s sums beyond 64 bits as rows of 64-bit parts', async () => {
    // The three sums of a cell: small, near and beyond 2^62 and 2^63 on both sides, and NULLs.
    // Each amount summed fits 64 bits, so a sum of 10^21 is over a hundred amounts near 2^63.
    const sum = fc.option(
      fc.oneof(
        fc.bigInt({ min: -1000n, max: 1000n }),
        fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
        fc.bigInt({ min: -(10n ** 21n), max: 10n ** 21n }),
        fc.constantFrom(2n ** 62n, 2n ** 62n + 1n, 2n ** 63n - 1n, 2n ** 63n, -(2n ** 63n) - 1n),
      ),
      { nil: null },
    );
    const cells = fc.sample(fc.tuple(sum, sum, sum), SAMPLES);
    cells.push([null, null, null], [2n ** 62n, -(2n ** 62n), 0n], [2n ** 62n + 1n, null, 1n]);
    // '' for NULL: a list's type is taken from its values, and a leading null has none.
    const column = (i: number) => listValue(cells.map((c) => c[i]?.toString() ?? ''));
    const reader = await connection.runAndReadAll(
      `SELECT
         CAST(sum(e4_part(a, n, p)) AS VARCHAR) AS a, CAST(sum(e4_part(b, n, p)) AS VARCHAR) AS b,
         CAST(sum(e4_part(c, n, p)) AS VARCHAR) AS c, count(*) AS rows,
         count(*) FILTER (
           WHERE greatest(abs(e4_part(a, n, p)), abs(e4_part(b, n, p)), abs(e4_part(c, n, p)))
             > 4611686018427387905
         ) AS oversized
       FROM (
         SELECT *, unnest(range(n)) AS p
         FROM (
           SELECT *, e4_parts(a, b, c) AS n
           FROM (
             SELECT unnest(range(${cells.length})) AS g,
               CAST(nullif(unnest($a::VARCHAR[]), '') AS HUGEINT) AS a,
               CAST(nullif(unnest($b::VARCHAR[]), '') AS HUGEINT) AS b,
               CAST(nullif(unnest($c::VARCHAR[]), '') AS HUGEINT) AS c
           )
         )
       )
       GROUP BY g ORDER BY g`,
      { a: column(0), b: column(1), c: column(2) },
    );
    const abs = (x: bigint | null) => (x === null ? 0n : x < 0n ? -x : x);
    const got = reader.getRowObjectsJson();
    const want = cells.map(([a, b, c]) => {
      const largest = [abs(a), abs(b), abs(c), 1n].reduce((x, y) => (x > y ? x : y));
      const rows = (largest + 2n ** 62n - 1n) / 2n ** 62n; // 1 for every sum up to 2^62
      const text = (x: bigint | null) => (x === null ? null : x.toString());
      return { a: text(a), b: text(b), c: text(c), rows: rows.toString(), oversized: '0' };
    });
    expect(got).toEqual(want);
    // 2^20 rows at most (2^82); beyond, an error that says so, not millions of rows.
    const parts = (x: bigint) =>
      connection.runAndReadAll(`SELECT e4_parts(CAST('${x}' AS HUGEINT), 0, NULL) AS n`);
    expect((await parts(2n ** 82n)).getRowObjectsJson()).toEqual([{ n: String(2n ** 20n) }]);
    await expect(parts(2n ** 82n + 1n)).rejects.toThrow(/too large to store/);
  });

  it('rounds exact halves away from zero on both sides', async () => {
    // 1 x 1 / 200 = 0.005 -> 0.01 and -0.005 -> -0.01; at scale 0, 5 / 2 = 2.5 -> 3.
    const cases: [string, string, string, number][] = [
      ['1', '1', '200', 2],
      ['-1', '1', '200', 2],
      ['5', '1', '2', 0],
      ['5', '1', '-2', 0],
    ];
    const got = await evaluate(
      'money_of_e4(e4_share(money_e4(a), money_e4(b), money_e4(CAST(c AS DECIMAL(18, 4))), unit_e4(s)))',
      cases,
    );
    expect(got).toEqual(['0.0100', '-0.0100', '3.0000', '-3.0000']);
  });
});
