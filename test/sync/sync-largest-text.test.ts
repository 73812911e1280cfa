import { describe, expect } from 'vitest';
import { largestText, writeLargest } from '../support/text-limits.ts';
import { syncEveryWay } from '../support/sync-every-way.ts';

describe('the longest values the store holds', () => {
  syncEveryWay({
    seed: (pool) => writeLargest(pool, 'first'),
    change: (pool, mode) => writeLargest(pool, mode),
    // A batch of these rows is several MB: flushed into DuckDB every 256 KiB of lines.
    flushBytes: 256 * 1024,
    expectStore: (store) => {
      const notes = ['first', 'replication', 'change-log'].map((v) => largestText(10_000, v));
      expect(store.clients!.some((row) => notes.some((n) => row.includes(n)))).toBe(true);
    },
  });
});
