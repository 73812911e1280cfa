import { LRUCache } from 'lru-cache';
import type { ReadModelChanges, ReadModelStatus } from './read-model-status.ts';

type Row = Record<string, unknown>;

/** A list whose page rows the cache keeps: its rows come from `table`, read by id. */
export interface CachedList {
  /** The list's name (its rows' shape: one select of one FROM clause). */
  name: string;
  /** The listed table; a changed id of it drops that id's row. */
  table: string;
  /** Other tables the row's columns read (joined names, say); a change to one drops the list. */
  dependsOn?: readonly string[];
}

interface ListRows {
  rows: LRUCache<string, Row>;
  /** Bumped by every drop: a fetch that overlapped one does not keep what it read. */
  generation: number;
}

/**
 * The rows of list pages, by list and id, kept in memory between requests. DuckDB chooses a
 * page's ids quickly from the few columns it filters and sorts on, but reading 50 wide rows
 * back from random positions of a columnar table costs 10-25 ms (every column's vector is
 * decompressed for each row); a page of rows already read is served from here instead.
 *
 * Kept current by the read model's commits (ReadModelStatus.committed): a changed id drops
 * its row, a change to a table a list depends on drops the list, a (re)load drops all. A
 * fetch records the generation before reading and keeps its rows only if no drop happened
 * meanwhile, so a row read before a commit is never kept after that commit's drop.
 * Least-recently-used rows leave beyond `rowsPerList`.
 */
export class RecordCache {
  private readonly lists = new Map<string, { list: CachedList; rows: ListRows }>();

  constructor(
    status: ReadModelStatus,
    private readonly rowsPerList = 50_000,
  ) {
    status.onChange((changes) => this.drop(changes));
  }

  /**
   * The rows of `ids` (those that exist), by id: from memory, and the rest from `fetch`,
   * which reads rows by id and returns each with its `id`.
   */
  async rows(
    list: CachedList,
    ids: readonly string[],
    fetch: (ids: string[]) => Promise<Row[]>,
  ): Promise<Map<string, Row>> {
    const entry = this.entry(list);
    const found = new Map<string, Row>();
    const missing: string[] = [];
    for (const id of ids) {
      const row = entry.rows.get(id);
      if (row === undefined) missing.push(id);
      else found.set(id, row);
    }
    if (missing.length === 0) return found;
    const generation = entry.generation;
    const fetched = await fetch(missing);
    // RECORD_CACHE_ROWS=0 keeps nothing (lru-cache itself needs a capacity of at least 1).
    const keep = this.rowsPerList > 0 && entry.generation === generation;
    for (const row of fetched) {
      const id = String(row.id);
      found.set(id, row);
      if (keep) entry.rows.set(id, row);
    }
    return found;
  }

  /** Rows kept for a list (for tests and metrics). */
  size(name: string): number {
    return this.lists.get(name)?.rows.rows.size ?? 0;
  }

  private entry(list: CachedList): ListRows {
    let entry = this.lists.get(list.name);
    if (!entry) {
      const rows = new LRUCache<string, Row>({ max: Math.max(1, this.rowsPerList) });
      entry = { list, rows: { rows, generation: 0 } };
      this.lists.set(list.name, entry);
    }
    return entry.rows;
  }

  private drop(changes: ReadModelChanges): void {
    for (const { list, rows } of this.lists.values()) {
      if (changes === 'everything' || list.dependsOn?.some((table) => changes.has(table))) {
        rows.rows.clear();
        rows.generation++;
        continue;
      }
      if (!changes.has(list.table)) continue;
      const ids = changes.get(list.table);
      if (ids === null || ids === undefined) rows.rows.clear();
      else for (const id of ids) rows.rows.delete(id);
      rows.generation++;
    }
  }
}
