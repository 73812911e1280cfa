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

  it('reads the sign of a decimal string', () => {
    expect(['-0.00', '0', '12', '-1.5'].map(decimalTextSign)).toEqual([0, 0, 1, -1]);
  });
});
