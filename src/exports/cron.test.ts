import { describe, expect, it } from 'vitest';
import { CronError, latestBetween, nextAfter, parseCron } from './cron.ts';

const at = (iso: string) => new Date(iso);
const next = (cron: string, after: string) => nextAfter(parseCron(cron), at(after)).toISOString();

describe('cron expressions', () => {
  it('finds the next minute strictly after a time, in UTC', () => {
    expect(next('* * * * *', '2026-11-21T08:30:00Z')).toBe('2026-11-21T08:31:00.000Z');
    expect(next('* * * * *', '2026-11-21T08:30:59.999Z')).toBe('2026-11-21T08:31:00.000Z');
    expect(next('0 * * * *', '2026-11-21T08:00:00Z')).toBe('2026-11-21T09:00:00.000Z');
    expect(next('30 2 * * *', '2026-11-21T08:00:00Z')).toBe('2026-11-22T02:30:00.000Z');
  });

  it('crosses months and years, and skips months without the day', () => {
    expect(next('0 0 1 * *', '2026-12-15T00:00:00Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('0 0 31 * *', '2026-02-01T00:00:00Z')).toBe('2026-03-31T00:00:00.000Z');
    expect(next('0 0 29 2 *', '2026-03-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
  });

  it('takes lists, ranges, steps and names', () => {
    expect(next('*/15 * * * *', '2026-11-21T08:31:00Z')).toBe('2026-11-21T08:45:00.000Z');
    expect(next('5,10 9-17/4 * * *', '2026-11-21T13:06:00Z')).toBe('2026-11-21T13:10:00.000Z');
    expect(next('0 6 * * MON-FRI', '2026-11-21T08:00:00Z')).toBe('2026-11-23T06:00:00.000Z');
    expect(next('0 6 * JAN SUN', '2026-11-21T08:00:00Z')).toBe('2027-01-03T06:00:00.000Z');
    expect(next('0 6 * * 7', '2026-11-21T08:00:00Z')).toBe('2026-11-22T06:00:00.000Z');
    expect(next('5/20 * * * *', '2026-11-21T08:30:00Z')).toBe('2026-11-21T08:45:00.000Z');
  });

  it('matches either day field when both are restricted', () => {
    // The 1st or any Monday: Monday 23 November comes before 1 December.
    expect(next('0 0 1 * 1', '2026-11-21T00:00:00Z')).toBe('2026-11-23T00:00:00.000Z');
  });

  it('names the field that is wrong', () => {
    for (const [source, message] of [
      ['* * * *', 'needs five fields'],
      ['60 * * * *', 'minute: 60 is outside 0-59'],
      ['* 24 * * *', 'hour: 24'],
      ['* * 0 * *', 'day of month: 0'],
      ['* * * 13 *', 'month: 13'],
      ['* * * * FUNDAY', "day of week: 'FUNDAY' contains illegal characters"],
      ['*/0 * * * *', 'minute: illegal stepping: 0'],
      ['5-1 * * * *', "minute: From value is larger than to value: '5-1'"],
      ['* * 1,,2 * *', "day of month: '' is empty"],
    ] as const) {
      expect(() => parseCron(source), source).toThrow(CronError);
      expect(() => parseCron(source), source).toThrow(message);
    }
    expect(() => nextAfter(parseCron('0 0 30 2 *'), at('2026-01-01T00:00:00Z'))).toThrow(
      'names no time',
    );
  });

  it('gives the latest time in a window, once, however many were missed', () => {
    const hourly = parseCron('0 * * * *');
    expect(
      latestBetween(hourly, at('2026-11-21T08:30:00Z'), at('2026-11-21T12:30:00Z'))?.toISOString(),
    ).toBe('2026-11-21T12:00:00.000Z');
    expect(latestBetween(hourly, at('2026-11-21T12:00:00Z'), at('2026-11-21T12:59:00Z'))).toBe(
      undefined,
    );
  });
});
