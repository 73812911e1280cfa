import { formatUuid } from './random.ts';

/**
 * What an invoice or bill line needs of a time entry, kept in typed arrays: a month of a
 * ten-million-entry workspace is ~600k entries, which as objects would cost hundreds of MB
 * and long GC pauses; here it is ~30 bytes each, and the arrays are reused month after month.
 */
export class EntryRefs {
  length = 0;
  private capacity: number;
  private ids: Uint32Array;
  private columns: Record<Column, Int32Array>;

  constructor(capacity = 1024) {
    this.capacity = capacity;
    this.ids = new Uint32Array(capacity * 4);
    this.columns = newColumns(capacity);
  }

  clear(): void {
    this.length = 0;
  }

  /** Appends an entry; `idWords` holds the entry id's four UUID words at `idOffset`. */
  push(idWords: Uint32Array, idOffset: number, ref: Ref): void {
    if (this.length === this.capacity) this.grow();
    const i = this.length++;
    this.ids.set(idWords.subarray(idOffset, idOffset + 4), i * 4);
    for (const column of COLUMNS) this.columns[column][i] = ref[column];
  }

  id(i: number): string {
    const o = i * 4;
    return formatUuid(this.ids[o] ?? 0, this.ids[o + 1] ?? 0, this.ids[o + 2] ?? 0, this.ids[o + 3] ?? 0);
  }

  get(column: Column, i: number): number {
    return this.columns[column][i] ?? 0;
  }

  /**
   * Indexes of the entries grouped by `target` (0..targets-1), each group in push order: a
   * counting sort, so grouping a month's entries by invoice costs two passes and no objects.
   */
  groupByTarget(targets: number): { order: Int32Array; starts: Int32Array } {
    const starts = new Int32Array(targets + 1);
    const target = this.columns.target;
    for (let i = 0; i < this.length; i++) (starts[(target[i] ?? 0) + 1] as number)++;
    for (let t = 0; t < targets; t++) starts[t + 1] = (starts[t + 1] ?? 0) + (starts[t] ?? 0);
    const next = starts.slice(0, targets);
    const order = new Int32Array(this.length);
    for (let i = 0; i < this.length; i++) {
      const t = target[i] ?? 0;
      order[next[t] ?? 0] = i;
      next[t] = (next[t] ?? 0) + 1;
    }
    return { order, starts };
  }

  private grow(): void {
    this.capacity *= 2;
    const ids = new Uint32Array(this.capacity * 4);
    ids.set(this.ids);
    this.ids = ids;
    const columns = newColumns(this.capacity);
    for (const column of COLUMNS) columns[column].set(this.columns[column]);
    this.columns = columns;
  }
}

const COLUMNS = ['project', 'task', 'user', 'day', 'seconds', 'rate', 'target'] as const;
type Column = (typeof COLUMNS)[number];

/**
 * Indexes into the generator's model: `task` is -1 for none; `rate` is a RateBook key;
 * `target` is the invoice slot of the month (invoice refs) or unused (bill refs).
 */
export type Ref = Record<Column, number>;

function newColumns(capacity: number): Record<Column, Int32Array> {
  return Object.fromEntries(COLUMNS.map((c) => [c, new Int32Array(capacity)])) as Record<
    Column,
    Int32Array
  >;
}
