import { describe, expect, it } from 'vitest';
import { wholeMonthsOf } from '../../src/reports/profitability/profitability.range.ts';

// A range's whole months are read from the month rollup of the priced facts, its other days
// from the facts (src/reports/profitability/sql/views/profitability_range_rows.sql).
describe('wholeMonthsOf', () => {
  it('is the range itself when it is whole months', () => {
    expect(wholeMonthsOf('2026-10-01', '2026-10-31')).toEqual({
      from: '2026-10-01',
      to: '2026-10-31',
    });
    expect(wholeMonthsOf('2025-11-01', '2026-10-31')).toEqual({
      from: '2025-11-01',
      to: '2026-10-31',
    });
  });

  it('leaves out partly covered months at either end, across years and leap days', () => {
    expect(wholeMonthsOf('2026-02-10', '2026-09-20')).toEqual({
      from: '2026-03-01',
      to: '2026-08-31',
    });
    expect(wholeMonthsOf('2025-12-02', '2027-01-30')).toEqual({
      from: '2026-01-01',
      to: '2026-12-31',
    });
    expect(wholeMonthsOf('2028-01-15', '2028-03-28')).toEqual({
      from: '2028-02-01',
      to: '2028-02-29',
    });
  });

  it('is null when no month is covered whole', () => {
    expect(wholeMonthsOf('2026-10-02', '2026-10-31')).toBeNull();
    expect(wholeMonthsOf('2026-10-15', '2026-11-14')).toBeNull();
    expect(wholeMonthsOf('2026-10-05', '2026-10-05')).toBeNull();
  });
});
