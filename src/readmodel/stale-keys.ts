import type { DuckDBConnection } from '@duckdb/node-api';
import type { DerivedBatch } from './derived-tables.ts';

/**
 * The keys of one kind that a change file makes stale: a SELECT of them, read from the read
 * model as it stands, given the change file's table `source` (its columns as text).
 */
export type StaleKeys = (source: string) => string;

/** The ids a change file (`source`, columns as text) names, as UUIDs. */
export const ids = (source: string, column = 'id') =>
  `SELECT DISTINCT CAST(${column} AS UUID) FROM ${source} WHERE ${column} IS NOT NULL`;

/** The entries of the users of some payees (a payee's work is its user's entries). */
export const entriesOfPayees = (payeeIds: string) =>
  `SELECT e.id FROM time_entries e
   WHERE e.user_id IN (SELECT user_id FROM payees WHERE id IN (${payeeIds}))`;

/** The entries on the lines of some team bills (a bill's figures share out over its lines). */
export const entriesOfBills = (billIds: string) =>
  `SELECT time_entry_id FROM team_bill_lines
   WHERE bill_id IN (${billIds}) AND time_entry_id IS NOT NULL`;

/** The payees of the pay rates a change file names. */
export const payeesOfRates = (source: string) =>
  `SELECT payee_id FROM payee_rates WHERE id IN (${ids(source)})`;

/** The bills of the team bill lines a change file names. */
export const billsOfLines = (source: string) =>
  `SELECT bill_id FROM team_bill_lines WHERE id IN (${ids(source)})`;

/** The bills the payments a change file names are allocated to. */
export const billsOfPayments = (source: string) =>
  `SELECT bill_id FROM team_payment_allocations WHERE payment_id IN (${ids(source)})`;

/** Which keys a derived part follows, and how it refreshes them. */
export interface StaleKeysRules<Kind extends string> {
  /** Where each kind's keys are collected until the refresh. */
  dirtyTables: Readonly<Record<Kind, string>>;
  /**
   * By copied table: keys of each kind that the change file names itself, as the column of the
   * file that holds them (`id`, its own ids), the same before the apply and after. They cost no
   * statement while the flush applies its files: the file's ids as the flush read them from its
   * lines (few ids of a table keyed by `id`), else read from the file at the refresh
   * (StaleSet.select), which the flush keeps until every part has finished.
   */
  own?: Readonly<Record<string, Partial<Record<Kind, string>>>>;
  /**
   * By copied table: which keys of each kind its change file makes stale, looked up in the read
   * model (the rows of other tables that name the file's rows), before the file is applied and
   * after.
   */
  stale: Readonly<Record<string, Partial<Record<Kind, StaleKeys>>>>;
  /**
   * By copied table: keys only the comparison of a change file with the rows it replaces can
   * tell (a workspace whose base currency changes), read before the file is applied.
   */
  staleBefore?: Readonly<Record<string, Partial<Record<Kind, StaleKeys>>>>;
  /**
   * After every table of the flush is applied: refreshes the kinds `stale` holds. StaleKeysBatch
   * empties the dirty tables afterwards.
   */
  refresh(duck: DuckDBConnection, stale: StaleSet<Kind>): Promise<void>;
}

/**
 * By kind: the copied tables whose changes make keys of it stale under `rules`
 * (DerivedTables.sources).
 */
export function sourcesByKind<Kind extends string>(
  rules: StaleKeysRules<Kind>,
): Record<Kind, string[]> {
  const sources = Object.fromEntries(
    Object.keys(rules.dirtyTables).map((kind) => [kind, [] as string[]]),
  ) as Record<Kind, string[]>;
  for (const byTable of [rules.own, rules.stale, rules.staleBefore])
    for (const [table, kinds] of Object.entries(byTable ?? {}))
      for (const kind of Object.keys(kinds as object) as Kind[])
        if (!sources[kind].includes(table)) sources[kind].push(table);
  for (const tables of Object.values<string[]>(sources)) tables.sort();
  return sources;
}

/**
 * The stale keys of one flush, by kind: those looked up into the kind's dirty table, and the
 * change files' own keys (StaleKeysRules.own): their ids as the flush read them from the lines,
 * or a SELECT of them from the file.
 */
export class StaleSet<Kind extends string> {
  /** Kinds whose dirty table holds keys. */
  private readonly filled = new Set<Kind>();
  /** By kind: SELECTs of the change files' own keys. */
  private readonly own = new Map<Kind, string[]>();
  /** By kind: change files' own keys, known. */
  private readonly known = new Map<Kind, Set<string>>();

  constructor(private readonly dirtyTables: Readonly<Record<Kind, string>>) {}

  /** Whether any key of `kind` is stale. */
  has(kind: Kind): boolean {
    return this.filled.has(kind) || this.own.has(kind) || this.known.has(kind);
  }

  /** The kinds with stale keys. */
  get size(): number {
    return new Set([...this.filled, ...this.own.keys(), ...this.known.keys()]).size;
  }

  /** The stale keys of `kind` when every one is known without a statement, else undefined. */
  ids(kind: Kind): readonly string[] | undefined {
    if (this.filled.has(kind) || this.own.has(kind)) return undefined;
    return [...(this.known.get(kind) ?? [])];
  }

  /** A SELECT of the stale keys of `kind` (a key may come more than once). */
  select(kind: Kind): string {
    const selects = [...(this.own.get(kind) ?? [])];
    const known = this.known.get(kind);
    if (known && known.size > 0) selects.push(valuesOf(known));
    if (this.filled.has(kind)) selects.push(`SELECT * FROM ${this.dirtyTables[kind]}`);
    return selects.length === 0 ? `SELECT NULL::UUID WHERE false` : selects.join(' UNION ALL ');
  }

  /**
   * Writes the own keys of `kind` into its dirty table too, for a macro that reads the table
   * (`<table>_for(false)`): afterwards the table holds every stale key of the kind.
   */
  async fill(duck: DuckDBConnection, kind: Kind): Promise<void> {
    const selects = [...(this.own.get(kind) ?? [])];
    const known = this.known.get(kind);
    if (known && known.size > 0) selects.push(valuesOf(known));
    this.own.delete(kind);
    this.known.delete(kind);
    if (selects.length === 0) return;
    await duck.run(`INSERT INTO ${this.dirtyTables[kind]} ${selects.join(' UNION ALL ')}`);
    this.filled.add(kind);
  }

  /** Notes keys of `kind` written into its dirty table. */
  noteFilled(kind: Kind): void {
    this.filled.add(kind);
  }

  /**
   * Notes a change file's own keys of `kind`: `column` of the file `source`, or `ids` when the
   * column is `id` and the flush read them from the lines.
   */
  noteOwn(
    kind: Kind,
    source: string,
    column: string,
    lines: ReadonlySet<string> | undefined,
  ): void {
    if (column === 'id' && lines) {
      const known = this.known.get(kind) ?? new Set<string>();
      for (const id of lines) known.add(id);
      this.known.set(kind, known);
      return;
    }
    const own = this.own.get(kind) ?? [];
    own.push(ids(source, column));
    this.own.set(kind, own);
  }

  /** Empties the dirty tables that hold keys, and forgets every key. */
  async clear(duck: DuckDBConnection): Promise<void> {
    for (const kind of this.filled) await duck.run(`DELETE FROM ${this.dirtyTables[kind]}`);
    this.filled.clear();
    this.own.clear();
    this.known.clear();
  }
}

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A SELECT of some ids (checked UUIDs) as written in a VALUES list. */
function valuesOf(ids: Iterable<string>): string {
  const rows = [...ids].map((id) => {
    if (!UUID_FORM.test(id)) throw new Error(`Not a UUID: ${id}`);
    return `('${id}'::UUID)`;
  });
  return `SELECT * FROM (VALUES ${rows.join(', ')})`;
}

/**
 * A derived part's share of one sync batch flush (ChangeBatch.flush), for a part that follows
 * stale keys: told about each table's change file before and after it is applied, it collects
 * the keys each file makes stale: looked up into their dirty tables (before: the rows it
 * replaces still name their old keys; after: the new rows name theirs), or, for the file's own
 * keys, only noted. Once all tables are applied it refreshes the kinds with stale keys, in the
 * same DuckDB transaction, and empties the dirty tables. A flush that marks none costs nothing
 * more, and a change file's own keys cost no statement before the refresh.
 */
export class StaleKeysBatch<Kind extends string> implements DerivedBatch {
  private readonly stale: StaleSet<Kind>;

  constructor(private readonly rules: StaleKeysRules<Kind>) {
    this.stale = new StaleSet(rules.dirtyTables);
  }

  async beforeApply(
    duck: DuckDBConnection,
    table: string,
    source: string,
    ids?: ReadonlySet<string>,
  ): Promise<void> {
    for (const [kind, column] of Object.entries(this.rules.own?.[table] ?? {}) as [Kind, string][])
      this.stale.noteOwn(kind, source, column, ids);
    await this.lookUp(duck, this.rules.staleBefore?.[table], source);
    await this.lookUp(duck, this.rules.stale[table], source);
  }

  async afterApply(duck: DuckDBConnection, table: string, source: string): Promise<void> {
    await this.lookUp(duck, this.rules.stale[table], source);
  }

  async finish(duck: DuckDBConnection): Promise<void> {
    if (this.stale.size === 0) return;
    await this.rules.refresh(duck, this.stale);
    await this.stale.clear(duck);
  }

  private async lookUp(
    duck: DuckDBConnection,
    stale: Partial<Record<Kind, StaleKeys>> | undefined,
    source: string,
  ): Promise<void> {
    for (const [kind, keys] of entries(stale)) {
      await duck.run(`INSERT INTO ${this.rules.dirtyTables[kind]} ${keys(source)}`);
      this.stale.noteFilled(kind);
    }
  }
}

const entries = <Kind extends string>(rules: Partial<Record<Kind, StaleKeys>> | undefined) =>
  Object.entries(rules ?? {}) as [Kind, StaleKeys][];

/**
 * A derived table keyed by one column, for the keys of `kind` in `stale`: their rows deleted,
 * then inserted again from the table's macro `<table>_for(false)`, which reads the kind's dirty
 * table.
 */
export async function refreshKeys<Kind extends string>(
  duck: DuckDBConnection,
  stale: StaleSet<Kind>,
  kind: Kind,
  table: string,
  key: string,
): Promise<void> {
  await stale.fill(duck, kind);
  await duck.run(`DELETE FROM ${table} WHERE ${key} IN (${stale.select(kind)})`);
  await duck.run(`INSERT INTO ${table} FROM ${table}_for(false)`);
}

/** Stale keys of one kind: their ids when known without a statement (StaleSet.ids), and a SELECT of them. */
export interface StaleEntries {
  ids?: readonly string[] | undefined;
  select: string;
}

/**
 * The ids of `stale` for an in-process refresh of at most `upTo` of them: the known ids, else
 * read from its SELECT (at most `upTo` + 1); undefined when there are more, or `upTo` is 0,
 * so that the caller leaves them to the macros.
 */
export async function staleIdsUpTo(
  duck: DuckDBConnection,
  stale: StaleEntries,
  upTo: number,
): Promise<readonly string[] | undefined> {
  if (upTo <= 0) return undefined;
  const ids =
    stale.ids ??
    (
      await duck.runAndReadAll(
        `SELECT DISTINCT CAST(CAST(id AS UUID) AS VARCHAR) FROM (${stale.select}) s(id)
         WHERE id IS NOT NULL LIMIT ${upTo + 1}`,
      )
    )
      .getRows()
      .map(([id]) => String(id));
  return ids.length > upTo ? undefined : ids;
}

/** The stale keys of `kind` in `stale`, as an in-process refresh takes them. */
export const staleEntries = <Kind extends string>(
  stale: StaleSet<Kind>,
  kind: Kind,
): StaleEntries => ({
  ids: stale.ids(kind),
  select: stale.select(kind),
});
