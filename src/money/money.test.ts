import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyScale } from './currencies.ts';
import {
  decimalTextProblem,
  decimalTextSign,
  formatAmount,
  formatDecimal,
  formatE4,
  Money,
  parseAmount,
} from './money.ts';

describe('money', () => {
  it('knows the minor units of docs/contract.md, "Money and rounding"', () => {
    expect(['JPY', 'KRW', 'VND', 'CLP', 'ISK'].map(currencyScale)).toEqual([0, 0, 0, 0, 0]);
    expect(['BHD', 'KWD', 'OMR', 'JOD', 'TND'].map(currencyScale)).toEqual([3, 3, 3, 3, 3]);
    expect(currencyScale('EUR')).toBe(2);
    expect(currencyScale('XYZ')).toBeUndefined();
  });

  it.each(['150', '150.5', '-3.25', '0.0001'])('accepts plain decimal %s', (text) => {
    expect(decimalTextProblem(text, 4)).toBeUndefined();
  });

  it.each(['1e3', 'NaN', 'Infinity', '+1', ' 1', '1 ', '', '1.', '.5', '1,5'])(
    'refuses %j',
    (text) => {
      expect(decimalTextProblem(text, 4)).toBeDefined();
    },
  );

  it('refuses more decimals than the currency has, never rounding them away', () => {
    expect(parseAmount('1.005', 'EUR')).toMatchObject({ ok: false });
    expect(parseAmount('150.5', 'JPY')).toMatchObject({ ok: false });
    expect(parseAmount('1.500', 'KWD')).toMatchObject({ ok: true });
  });

  it('formats with the currency scale, rounding half away from zero', () => {
    expect(formatAmount('150', 'EUR')).toBe('150.00');
    expect(formatAmount('150.0000', 'JPY')).toBe('150');
    expect(formatAmount('1.5', 'KWD')).toBe('1.500');
    expect(formatDecimal('0.125', 2)).toBe('0.13');
    expect(formatDecimal('-0.125', 2)).toBe('-0.13');
    expect(formatDecimal('-0.001', 2)).toBe('0.00');
  });

  it.each([
    ['-0.0000', 2, '0.00'],
    ['-12.3400', 2, '-12.34'],
    ['150.0000', 0, '150'],
    ['1.5000', 3, '1.500'],
    ['7', 2, '7.00'],
    ['0.1200', 4, '0.1200'],
    ['-0.0500', 1, '-0.1'],
  ])('formats %s at scale %i as %s', (text, scale, expected) => {
    expect(formatDecimal(text, scale)).toBe(expected);
  });

  it('formats plain decimal text exactly as decimal.js rounds it (fast path or not)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 4 }),
        (units, decimals, scale) => {
          const digits = (units < 0n ? -units : units).toString().padStart(decimals + 1, '0');
          const whole = digits.slice(0, digits.length - decimals);
          const text = `${units < 0n ? '-' : ''}${whole}${decimals > 0 ? `.${digits.slice(-decimals)}` : ''}`;
          const rounded = new Decimal(text).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
          const expected = (rounded.isZero() ? new Decimal(0) : rounded).toFixed(scale);
          expect(formatDecimal(text, scale)).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads the sign of a decimal string', () => {
    expect(['-0.00', '0', '12', '-1.5'].map(decimalTextSign)).toEqual([0, 0, 1, -1]);
  });

  describe('formatE4', () => {
    const SCALES = [0, 1, 2, 3, 4];
    // The decimal a count of 10^-4 units stands for, made by decimal.js (exact at this
    // precision), and printed the way formatDecimal prints a Decimal: the path formatE4 replaces.
    const viaDecimal = (e4: bigint, scale: number) =>
      formatDecimal(new Money(e4.toString()).div(10000), scale);

    it.each([
      [-1234500n, 2, '-123.45'],
      [-1234567n, 0, '-123'],
      [5000n, 0, '1'],
      [-5000n, 0, '-1'],
      [4999n, 0, '0'],
      [-49n, 2, '0.00'],
      [-50n, 2, '-0.01'],
      [15n, 3, '0.002'],
      [-7n, 4, '-0.0007'],
      [0n, 4, '0.0000'],
      [2n ** 70n, 2, '118059162071741130.34'],
    ])('prints %s ten-thousandths at scale %i as %s', (e4, scale, expected) => {
      expect(formatE4(e4, scale)).toBe(expected);
    });

    it('agrees with decimal.js for every count from -3 to +3 whole units, at every scale', () => {
      // Covers zero, everything that rounds to zero from either side, and every half near it.
      for (const scale of SCALES)
        for (let e4 = -30000n; e4 <= 30000n; e4 += 1n)
          if (formatE4(e4, scale) !== viaDecimal(e4, scale))
            expect(formatE4(e4, scale), `${e4} at scale ${scale}`).toBe(viaDecimal(e4, scale));
    });

    it('rounds exact halves away from zero at every scale, as decimal.js does', () => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }),
          fc.constantFrom(0, 1, 2, 3),
          fc.constantFrom(-1n, 0n, 1n),
          (whole, scale, nudge) => {
            const step = 10n ** BigInt(4 - scale);
            // ...5000 past the scale (or one unit either side of it), with either sign.
            const e4 = whole * step + (whole < 0n ? -1n : 1n) * (step / 2n + nudge);
            expect(formatE4(e4, scale)).toBe(viaDecimal(e4, scale));
          },
        ),
        { numRuns: 2000 },
      );
    });

    it.each([
      ['up to a million', 10n ** 6n],
      ['up to 64 bits', 2n ** 63n],
      ['past 64 bits', 2n ** 80n],
      ['past 128 bits', 10n ** 45n],
    ])('agrees with decimal.js for random counts %s, either sign, at every scale', (_, max) => {
      fc.assert(
        fc.property(fc.bigInt({ min: -max, max }), fc.constantFrom(...SCALES), (e4, scale) => {
          expect(formatE4(e4, scale)).toBe(viaDecimal(e4, scale));
        }),
        { numRuns: 2000 },
      );
    });

    it.each([-1, 5, 1.5, NaN])('refuses scale %s', (scale) => {
      expect(() => formatE4(1n, scale)).toThrow(RangeError);
    });
  });
});
