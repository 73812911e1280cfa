/**
 * The generator is deterministic: the same options give the same bytes, whatever the stream's
 * backpressure, another seed gives others, and options that cannot make a workspace are refused.
 */
import { describe, expect, it } from 'vitest';
import { generate, sha256 } from '../support/generator-output.ts';

describe('generateWorkspace determinism', () => {
  const options = { timeEntries: 1500, seed: 11 };

  it('writes byte-identical output for the same options', async () => {
    const [a, b] = await Promise.all([generate(options), generate(options)]);
    expect(sha256(a.bytes)).toBe(sha256(b.bytes));
  });

  it('writes different output for another seed', async () => {
    const [a, b] = await Promise.all([generate(options), generate({ ...options, seed: 12 })]);
    expect(sha256(a.bytes)).not.toBe(sha256(b.bytes));
  });

  it('writes the same bytes into a stream that applies backpressure', async () => {
    const [fast, slow] = await Promise.all([generate(options), generate(options, true)]);
    expect(sha256(slow.bytes)).toBe(sha256(fast.bytes));
  });

  it('refuses options that cannot make a workspace (fewer than four members)', async () => {
    await expect(generate({ ...options, members: 3 })).rejects.toThrow();
  });
});
