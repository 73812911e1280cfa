import { describe, expect, it } from 'vitest';
import { Queue } from './queue.ts';

describe('Queue', () => {
  it('gives items back in the order they came, across compactions', () => {
    const q = new Queue<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      q.push(i);
      if (i % 3 === 0) out.push(q.shift()!);
    }
    while (q.length > 0) out.push(q.shift()!);
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(q.shift()).toBeUndefined();
  });

  it('is empty after clear', () => {
    const q = new Queue<string>();
    q.push('a');
    q.clear();
    expect(q.length).toBe(0);
  });
});
