import { describe, expect, it } from 'vitest';
import { csvBufferBytes, MAX_LINE_BYTES } from './csv-line-limit.ts';

describe('csvBufferBytes', () => {
  it('asks a file of a few rows for a small buffer, not the longest row the reader takes', () => {
    expect(csvBufferBytes(0)).toBe(64 * 1024);
    expect(csvBufferBytes(300)).toBe(64 * 1024);
  });

  it('holds the whole file past the smallest buffer: no row is longer than its file', () => {
    expect(csvBufferBytes(1_000_000)).toBe(1_000_001);
    expect(csvBufferBytes(MAX_LINE_BYTES - 1)).toBe(MAX_LINE_BYTES);
  });

  it('stops at the longest row the reader takes', () => {
    expect(csvBufferBytes(MAX_LINE_BYTES)).toBe(MAX_LINE_BYTES);
    expect(csvBufferBytes(10 * MAX_LINE_BYTES)).toBe(MAX_LINE_BYTES);
  });
});
