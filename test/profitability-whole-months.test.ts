import { describe, expect, it } from 'vitest';
import { wholeMonths } from '../src/reports/profitability/profitability.query.ts';

// A range of whole months is answered from the month cells alone; any other range also
// computes its partly covered months' days (sql/duckdb/views/profitability_report.sql).
describe('wholeMonths', () => {
  it('holds from a first day to a last day, across months and years', () => {
    expect(wholeMonths('2026-10-01', '2026-10-31')).toBe(true);
    expect(wholeMonths('2025-11-01', '2026-10-31')).toBe(true);
    expect(wholeMonths('2028-02-01', '2028-02-29')).toBe(true);
    expect(wholeMonths('2026-02-01', '2026-02-28')).toBe(true);
  });

  it('does not hold when either end cuts a month', () => {
    expect(wholeMonths('2026-10-02', '2026-10-31')).toBe(false);
    expect(wholeMonths('2026-10-01', '2026-10-30')).toBe(false);
    expect(wholeMonths('2027-02-01', '2027-02-29')).toBe(false);
    expect(wholeMonths('2026-04-01', '2026-04-31')).toBe(false);
  });
});
