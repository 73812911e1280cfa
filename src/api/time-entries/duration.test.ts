import { describe, expect, it } from 'vitest';
import { entryLengthProblem, parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['1h30m', 5400],
    ['1h', 3600],
    ['90m', 5400],
    ['45s', 45],
    ['1h30m15s', 5415],
    ['1h15s', 3615],
    ['2m30s', 150],
    ['5400s', 5400],
    ['1:30', 5400],
    ['0:45', 2700],
    ['01:05', 3900],
    ['1:30:15', 5415],
    ['24:00:00', 86_400],
    ['1.5h', 5400],
    ['0.25h', 900],
    ['1.0h', 3600],
    ['0.01h', 36],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toEqual({ seconds });
  });

  it.each([
    '1h30',
    '90',
    '1.5',
    'h',
    '-1h',
    '+1h',
    '',
    '1h 30m',
    ' 1h',
    '1h ',
    '1H30M',
    '30m1h',
    '1h1h',
    '1.5m',
    '1.5h30m',
    '.5h',
    '1.h',
    '1,5h',
    '1:5',
    '1:60',
    '1:30:60',
    ':30',
    '1:30:15:00',
    '1d',
  ])('refuses %j', (text) => {
    expect(parseDuration(text)).toHaveProperty('problem');
  });

  it('refuses minutes or seconds of 60 or more after a larger unit', () => {
    expect(parseDuration('1h60m')).toHaveProperty('problem');
    expect(parseDuration('1m60s')).toHaveProperty('problem');
    expect(parseDuration('1h60s')).toHaveProperty('problem');
  });

  it('refuses decimal hours that are not a whole number of seconds, never rounding', () => {
    expect(parseDuration('0.0001h')).toEqual({ problem: 'must be a whole number of seconds' });
    expect(parseDuration('0.001h')).toEqual({ problem: 'must be a whole number of seconds' });
  });

  it('keeps huge values out of range instead of losing precision', () => {
    const parsed = parseDuration('99999999999999999999999h');
    expect(parsed).toHaveProperty('seconds');
    expect(entryLengthProblem((parsed as { seconds: number }).seconds)).toBeDefined();
  });

  it('reads zero as zero (the bounds refuse it, not the parser)', () => {
    expect(parseDuration('0s')).toEqual({ seconds: 0 });
    expect(parseDuration('0:00')).toEqual({ seconds: 0 });
  });
});

describe('entryLengthProblem', () => {
  it('accepts 1 second to 24 hours', () => {
    expect(entryLengthProblem(1)).toBeUndefined();
    expect(entryLengthProblem(86_400)).toBeUndefined();
  });

  it('refuses zero, negatives and more than 24 hours', () => {
    expect(entryLengthProblem(0)).toBeDefined();
    expect(entryLengthProblem(-1)).toBeDefined();
    expect(entryLengthProblem(86_401)).toBeDefined();
  });
});
