import { describe, expect, it } from 'vitest';
import { todayIn } from './calendar.ts';

describe('todayIn', () => {
  const instant = new Date('2026-11-28T23:30:00Z');

  it("gives the zone's date", () => {
    expect(todayIn('UTC', instant)).toBe('2026-11-28');
    expect(todayIn('Europe/Berlin', instant)).toBe('2026-11-29');
    expect(todayIn('America/Los_Angeles', instant)).toBe('2026-11-28');
  });

  it('counts a zone the runtime does not know as UTC, instead of failing the request', () => {
    for (const zone of ['Not/A_Zone', 'x'.repeat(64), '', 'a,"b"\n𝄞'])
      expect(todayIn(zone, instant)).toBe('2026-11-28');
    expect(todayIn('Not/A_Zone', new Date('2026-11-29T00:30:00Z'))).toBe('2026-11-29');
  });
});
