import { LRUCache } from 'lru-cache';
import type { ReadModelChanges, ReadModelStatus } from './read-model-status.ts';

/** Characters of answers kept by default (ANSWER_CACHE_MB: 32). */
export const DEFAULT_ANSWER_CACHE_CHARS = 32 * 1024 * 1024;

interface Kept {
  text: string;
  /** The copied tables the answer reads, and where they stood before it was read. */
  tables: readonly string[];
  stamp: string;
}

/**
 * Whole answers of read-model GETs (their JSON text), by key, kept while none of the copied
 * tables they read has changed. Under a mixed load most reads ask again what was asked a
 * moment before, and an answer the read model computes in a few statements costs 5-40 ms of
 * DuckDB (planning, most of it, on a small workspace), two reads at a time, beside the sync:
 * served from here it costs none, and takes no turn among the reads (docs/performance.md).
 *
 * Each read-model commit counts a change of every copied table it wrote (ReadModelStatus,
 * reported before anyone waiting for that commit is released), a load counts a change of all.
 * An answer is stamped with its tables' counts taken before it is read, and kept only if they
 * are the same once it has been read: an answer that overlapped a commit changing one of them
 * is served but not kept. A derived table (the summaries, the search index) changes only in a
 * batch that changes one of its part's sources (DerivedTables.sources), so an answer names
 * those copied tables for it. Least recently used answers leave beyond `maxChars` characters.
 */
export class AnswerCache {
  /** By copied table: the commits that changed it. */
  private readonly changes = new Map<string, number>();
  /** Loads of the whole read model (each changes every table). */
  private loads = 0;
  private readonly answers: LRUCache<string, Kept> | undefined;

  constructor(status: ReadModelStatus, maxChars = DEFAULT_ANSWER_CACHE_CHARS) {
    // ANSWER_CACHE_MB=0 keeps nothing (lru-cache needs a size of at least 1).
    if (maxChars > 0)
      this.answers = new LRUCache({
        maxSize: maxChars,
        sizeCalculation: (kept, key) => kept.text.length + key.length,
      });
    status.onChange((changes) => this.changed(changes));
  }

  /** Where `tables` stand now: taken before an answer that reads them is read. */
  stamp(tables: readonly string[]): string {
    return [this.loads, ...tables.map((table) => this.changes.get(table) ?? 0)].join(' ');
  }

  /** The answer kept for `key`, if none of its tables has changed since it was read. */
  get(key: string): string | undefined {
    const kept = this.answers?.get(key);
    if (kept === undefined) return undefined;
    if (kept.stamp === this.stamp(kept.tables)) return kept.text;
    this.answers!.delete(key);
    return undefined;
  }

  /**
   * Keeps `text`, the answer of `key`, read after `stamp` was taken of `tables`, unless one of
   * them has changed since.
   */
  keep(key: string, tables: readonly string[], stamp: string, text: string): void {
    if (this.answers && stamp === this.stamp(tables))
      this.answers.set(key, { text, tables, stamp });
  }

  /** Answers kept (for tests and metrics). */
  get size(): number {
    return this.answers?.size ?? 0;
  }

  private changed(changes: ReadModelChanges): void {
    if (changes === 'everything') {
      this.loads++;
      this.answers?.clear();
      return;
    }
    for (const table of changes.keys()) this.changes.set(table, (this.changes.get(table) ?? 0) + 1);
  }
}
