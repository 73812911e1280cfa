import { formatUuid } from './random.ts';

/**
 * What an invoice or bill line needs of a time entry. Indexes into the generator's model:
 * `task` is -1 for none; `rate` is a RateBook key (bill refs); `target` is the invoice slot
 * of the month (invoice refs).
 */
export interface Ref {
  project: number;
  task: number;
  user: number;
  day: number;
  seconds: number;
  rate: number;
  target: number;
}

/**
 * Entry refs of one month (invoices) or one user-month (bills), in typed arrays: the id as
 * four UUID words, the rest as integers. A month of a ten-million-entry workspace is ~600k
 * entries; as objects, or even as id strings, they would live long enough to fill the old
 * generation of the heap with garbage each month. Here each is 44 bytes outside the heap,
 * in arrays reused month after month.
 */
export class EntryRefs {
  length = 0;
  private ids = new Uint32Array(0);
  private columns = new Int32Array(0);

  /** Appends an entry whose id's UUID words are in `idWords` at `idOffset`. */
  push(idWords: Uint32Array, idOffset: number, ref: Ref): void {
    const i = this.length;
    if (i * WIDTH === this.columns.length) this.grow();
    this.ids.set(idWords.subarray(idOffset, idOffset + 4), i * 4);
    const c = this.columns;
    const o = i * WIDTH;
    c[o] = ref.project;
    c[o + 1] = ref.task;
    c[o + 2] = ref.user;
    c[o + 3] = ref.day;
    c[o + 4] = ref.seconds;
    c[o + 5] = ref.rate;
    c[o + 6] = ref.target;
    this.length++;
  }

  /** Forgets all refs (the arrays are kept for reuse). */
  clear(): void {
    this.length = 0;
  }

  id(i: number): string {
    const ids = this.ids;
    const o = i * 4;
    return formatUuid(ids[o] ?? 0, ids[o + 1] ?? 0, ids[o + 2] ?? 0, ids[o + 3] ?? 0);
  }

  get(column: keyof Ref, i: number): number {
    return this.columns[i * WIDTH + OFFSET[column]] ?? 0;
  }

  /**
   * Indexes of the entries grouped by `target` (0..targets-1), each group in push order: a
   * counting sort, so grouping a month's entries by invoice costs two passes and no objects.
   */
  groupByTarget(targets: number): { order: Int32Array; starts: Int32Array } {
    const starts = new Int32Array(targets + 1);
    for (let i = 0; i < this.length; i++) {
      const t = this.get('target', i) + 1;
      starts[t] = (starts[t] ?? 0) + 1;
    }
    for (let t = 0; t < targets; t++) starts[t + 1] = (starts[t + 1] ?? 0) + (starts[t] ?? 0);
    const next = starts.slice(0, targets);
    const order = new Int32Array(this.length);
    for (let i = 0; i < this.length; i++) {
      const t = this.get('target', i);
      const at = next[t] ?? 0;
      order[at] = i;
      next[t] = at + 1;
    }
    return { order, starts };
  }

  private grow(): void {
    const capacity = Math.max(1024, this.length * 2);
    const ids = new Uint32Array(capacity * 4);
    ids.set(this.ids);
    this.ids = ids;
    const columns = new Int32Array(capacity * WIDTH);
    columns.set(this.columns);
    this.columns = columns;
  }
}

const OFFSET: Record<keyof Ref, number> = {
  project: 0,
  task: 1,
  user: 2,
  day: 3,
  seconds: 4,
  rate: 5,
  target: 6,
};
const WIDTH = 7;
