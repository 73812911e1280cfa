import { describe, expect, it } from 'vitest';
import {
  decimalText,
  isoTimestamp,
  snapshotCurrency,
  snapshotDate,
  snapshotDecimal,
  snapshotTimestamp,
  snapshotUuid,
  uuid,
} from './value-schemas.ts';

const messages = (result: { error?: { issues: { message: string }[] } | undefined }) =>
  result.error?.issues.map((i) => i.message);

describe('the API primitives', () => {
  it('take an RFC 9562 UUID only, with one message', () => {
    expect(uuid.safeParse('0b6b9a4e-3c1d-4f6a-9b2e-7d8c5a1f0e3d').success).toBe(true);
    expect(messages(uuid.safeParse('0b6b9a4e-3c1d-4f6a-1b2e-7d8c5a1f0e3d'))).toEqual([
      'must be a UUID',
    ]);
  });

  it('take a timestamp with its offset only', () => {
    expect(isoTimestamp.safeParse('2026-03-01T10:00:00+01:00').success).toBe(true);
    expect(messages(isoTimestamp.safeParse('2026-03-01T10:00:00'))).toEqual([
      'must be an ISO 8601 timestamp',
    ]);
  });

  it('answer decimals as plain text', () => {
    expect(decimalText.safeParse('-12.50').success).toBe(true);
    expect(decimalText.safeParse('1e3').success).toBe(false);
  });
});

describe('the snapshot variants', () => {
  it('take a UUID in any case and version and keep it lower-case', () => {
    expect(snapshotUuid.parse('0B6B9A4E-3C1D-1F6A-1B2E-7D8C5A1F0E3D')).toBe(
      '0b6b9a4e-3c1d-1f6a-1b2e-7d8c5a1f0e3d',
    );
  });

  it('give one message for a date of a bad form or out of range', () => {
    const message = 'must be a date YYYY-MM-DD that exists, from 0001-01-01 to 9999-12-31';
    expect(messages(snapshotDate.safeParse('2026-02-30'))).toEqual([message]);
    expect(messages(snapshotDate.safeParse('0000-01-01'))).toEqual([message]);
  });

  it('take a timestamp without seconds or with a +hhmm zone, as UTC', () => {
    expect(snapshotTimestamp.parse('2026-03-01T10:00+0100')).toBe('2026-03-01T09:00:00.000Z');
  });

  it('take only known currencies and decimals within the scale', () => {
    expect(snapshotCurrency.safeParse('EUR').success).toBe(true);
    expect(snapshotCurrency.safeParse('XYZ').success).toBe(false);
    expect(snapshotDecimal(2).safeParse('1.25').success).toBe(true);
    expect(snapshotDecimal(2).safeParse('1.255').success).toBe(false);
  });
});
