import { describe, expect, it } from 'vitest';
import { ReadGate } from './read-gate.ts';

const settledWithin = async (promise: Promise<void>, ms: number) =>
  Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(resolve, ms, false)),
  ]);

describe('ReadGate', () => {
  it('lets a read pass at once while no batch is being written', async () => {
    expect(await settledWithin(new ReadGate().pass(), 5)).toBe(true);
  });

  it('holds a read while a batch is written, and lets it go at the commit', async () => {
    const gate = new ReadGate(10_000);
    gate.close();
    const held = gate.pass();
    expect(await settledWithin(held, 30)).toBe(false);
    gate.open();
    expect(await settledWithin(held, 5)).toBe(true);
  });

  it('lets a held read go after its bound when the batch goes on', async () => {
    const gate = new ReadGate(20);
    gate.close();
    expect(await settledWithin(gate.pass(), 10)).toBe(false);
    expect(await settledWithin(gate.pass(), 200)).toBe(true);
  });
});
