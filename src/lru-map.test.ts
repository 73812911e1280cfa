import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.ts';

/** A map of texts weighing their length, up to 10 characters, and the keys it evicted. */
function textsOfTenCharacters() {
  const evicted: string[] = [];
  const map = new LruMap<string, string>(10, {
    weigh: (text) => text.length,
    onEvict: (key) => evicted.push(key),
  });
  return { map, evicted };
}

describe('LruMap', () => {
  it('evicts the least recently used entry, a read counting as a use', () => {
    const evicted: string[] = [];
    const map = new LruMap<string, number>(3, { onEvict: (key) => evicted.push(key) });
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect(map.get('a')).toBe(1); // b is now the least recently used
    map.set('d', 4);
    expect(evicted).toEqual(['b']);
    expect([...map.entries()]).toEqual([
      ['c', 3],
      ['a', 1],
      ['d', 4],
    ]);
  });

  it('does not move an entry on peek', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.peek('a')).toBe(1);
    map.set('c', 3);
    expect(map.peek('a')).toBeUndefined();
    expect([...map.values()]).toEqual([2, 3]);
  });

  it('counts weights, and an entry heavier than the capacity does not stay', () => {
    const { map, evicted } = textsOfTenCharacters();
    map.set('a', 'xxxx');
    map.set('b', 'xxxx');
    expect(map.weight).toBe(8);
    map.set('c', 'xxx'); // 11: a leaves
    expect(evicted).toEqual(['a']);
    expect(map.weight).toBe(7);
    map.set('big', 'x'.repeat(11)); // everything leaves, the big one last
    expect(evicted).toEqual(['a', 'b', 'c', 'big']);
    expect(map.size).toBe(0);
    expect(map.weight).toBe(0);
  });

  it('replacing or deleting an entry adjusts the weight without calling onEvict', () => {
    const { map, evicted } = textsOfTenCharacters();
    map.set('a', 'xxxxxx');
    map.set('a', 'xx');
    expect(map.weight).toBe(2);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    map.set('b', 'x');
    map.clear();
    expect(map.weight).toBe(0);
    expect(evicted).toEqual([]);
  });

  it('keeps nothing with capacity 0, each entry evicted as it is set', () => {
    const evicted: string[] = [];
    const map = new LruMap<string, number>(0, { onEvict: (key) => evicted.push(key) });
    map.set('a', 1);
    expect(map.get('a')).toBeUndefined();
    expect(evicted).toEqual(['a']);
  });

  it('refuses a negative or missing capacity', () => {
    expect(() => new LruMap(-1)).toThrow(RangeError);
    expect(() => new LruMap(Number.NaN)).toThrow(RangeError);
  });
});
