import { describe, expect, it } from 'vitest';
import { monthOf } from './profitability.range.ts';

describe('monthOf', () => {
  it('spans the month of the date', () => {
    expect(monthOf('2026-10-15')).toEqual({ from: '2026-10-01', to: '2026-10-31' });
    expect(monthOf('2026-11-01')).toEqual({ from: '2026-11-01', to: '2026-11-30' });
    expect(monthOf('2026-12-31')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
  });

  it('knows February in leap and common years', () => {
    expect(monthOf('2028-02-10')).toEqual({ from: '2028-02-01', to: '2028-02-29' });
    expect(monthOf('2026-02-10')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(monthOf('2100-02-10')).toEqual({ from: '2100-02-01', to: '2100-02-28' });
  });
});
