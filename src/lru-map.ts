/**
 * A map that keeps its entries within a capacity, the least recently used leaving first: the
 * one eviction rule of the server's in-memory caches (list rows, rate-limit buckets). Each
 * entry weighs `weigh(value)` (1 by default, so the capacity counts entries); `onEvict` sees
 * every entry that leaves because of the capacity (not one that is deleted or replaced). Built
 * on Map's insertion order: a read or a write moves the entry to the end, and eviction takes
 * from the front.
 *
 * @example
 * const rows = new LruMap<string, Row>(2, { onEvict: (id) => console.log('dropped', id) });
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  #weight = 0;

  constructor(
    readonly capacity: number,
    private readonly options: {
      weigh?: (value: V) => number;
      onEvict?: (key: K, value: V) => void;
    } = {},
  ) {
    // 0 is allowed: a cache configured to keep nothing (RECORD_CACHE_ROWS=0).
    if (!(capacity >= 0)) throw new RangeError('An LRU map cannot hold a negative weight');
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The total weight held (the entry count when no `weigh` was given). */
  get weight(): number {
    return this.#weight;
  }

  /** The value of `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** The value of `key`, leaving the order as it is. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /**
   * Sets `key` as the most recently used, then evicts from the least recently used until the
   * weight fits (this entry last of all: one heavier than the capacity does not stay).
   */
  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.options.weigh?.(value) ?? 1;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.capacity) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
      this.options.onEvict?.(oldest, entry.value);
    }
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
    return true;
  }

  /** Removes every entry (without `onEvict`). */
  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }

  /** The entries, least recently used first; deleting the entry just seen is allowed. */
  *entries(): IterableIterator<[K, V]> {
    for (const [key, entry] of this.#entries) yield [key, entry.value];
  }

  /** The values, least recently used first. */
  *values(): IterableIterator<V> {
    for (const entry of this.#entries.values()) yield entry.value;
  }
}
