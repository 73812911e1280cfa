import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache.ts';
import { ReadModelStatus } from './read-model-status.ts';

const AS_OF = new Date('2026-11-28T12:00:00Z');
const commit = (status: ReadModelStatus, ...tables: string[]) =>
  status.committed(AS_OF, new Map(tables.map((table) => [table, null])));

/** A cache of `status`, holding `answer` for key `k`, which reads clients and projects. */
function cacheWithAnswer(status = new ReadModelStatus(), maxChars?: number) {
  const cache = new AnswerCache(status, maxChars);
  const reads = ['clients', 'projects'];
  cache.keep('k', reads, cache.stamp(reads), '{"data":[]}');
  return { cache, status };
}

describe('AnswerCache', () => {
  it('serves a kept answer while no commit changes a table it reads', () => {
    const { cache, status } = cacheWithAnswer();
    expect(cache.get('k')).toBe('{"data":[]}');
    commit(status, 'time_entries', 'tasks');
    expect(cache.get('k')).toBe('{"data":[]}');
  });

  it('drops an answer once a commit changes a table it reads', () => {
    const { cache, status } = cacheWithAnswer();
    commit(status, 'projects');
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops every answer on a load of the whole read model', () => {
    const { cache, status } = cacheWithAnswer();
    status.committed(AS_OF, 'everything');
    expect(cache.get('k')).toBeUndefined();
  });

  it('does not keep an answer read while a commit changed a table it reads', () => {
    const status = new ReadModelStatus();
    const cache = new AnswerCache(status);
    const stamp = cache.stamp(['clients']);
    // The answer's statements ran; a commit of clients came before it was kept.
    commit(status, 'clients');
    cache.keep('k', ['clients'], stamp, '{"data":"old"}');
    expect(cache.get('k')).toBeUndefined();
  });

  it('keeps an answer read while a commit changed only other tables', () => {
    const status = new ReadModelStatus();
    const cache = new AnswerCache(status);
    const stamp = cache.stamp(['clients']);
    commit(status, 'time_entries');
    cache.keep('k', ['clients'], stamp, '{"data":"current"}');
    expect(cache.get('k')).toBe('{"data":"current"}');
  });

  it('lets the least recently used answers go beyond its size in characters', () => {
    const status = new ReadModelStatus();
    const cache = new AnswerCache(status, 100);
    const answer = 'x'.repeat(40);
    for (const key of ['a', 'b']) cache.keep(key, [], cache.stamp([]), answer);
    expect(cache.get('a')).toBe(answer);
    cache.keep('c', [], cache.stamp([]), answer);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([answer, undefined, answer]);
  });

  it('keeps nothing at size 0', () => {
    const { cache } = cacheWithAnswer(new ReadModelStatus(), 0);
    expect(cache.get('k')).toBeUndefined();
  });
});
