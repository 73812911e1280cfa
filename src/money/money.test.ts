import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyScale } from './currencies.ts';
import {
  decimalTextProblem,
  decimalTextSign,
  formatAmount,
  formatDecimal,
  parseAmount,
} from './money.ts';

describe('money', () => {
  it('knows the minor units of decisions 9', () => {
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
});
