import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { CachedList, RecordCache } from '../../readmodel/record-cache.ts';
import type { Caller } from '../caller.ts';
import { canonicalJson, invalidCursor, type CursorCodec } from './cursor.ts';
import { readPage, type OrderPart, type PageRequest, type SortKey } from './keyset.ts';
import type { SortOrder } from './list-query.ts';
import { SqlParams } from '../../readmodel/sql-params.ts';

/** Records matching a search, as a WITH clause `_search(record_id, rank)`: smaller rank is better. */
export interface SearchMatches {
  sql: string;
  params: Record<string, DuckDBValue>;
}

/** Turns a page of rows into records: row by row, or a whole page at once. */
type RecordMapping =
  | { toRecord(row: Record<string, unknown>, caller: Caller): unknown; toRecords?: never }
  | {
      /** For records with nested lists, read for the whole page in one more query each. */
      toRecords(
        connection: DuckDBConnection,
        rows: Record<string, unknown>[],
        caller: Caller,
      ): Promise<unknown[]>;
      toRecord?: never;
    };

/** What one list endpoint is: its rows, filters, sort keys and record shape. */
export type ListEndpoint<Q> = RecordMapping & {
  /** Binds cursors to this endpoint. */
  name: string;
  /** FROM clause of the record's columns; the listed table is aliased `r`. */
  from: string;
  /**
   * FROM clause that choosing a page's rows needs, when `from` joins tables only for the
   * record's columns (default `from`). Filters and sort keys read only this.
   */
  rowsFrom?: string;
  /** False when `from` is a view (see PageRequest.lateColumns). */
  lateColumns?: boolean;
  /**
   * Keep the page rows in the record cache: the listed table, and the other tables the
   * select reads. Only for rows the mapping reads whole from one select (no nested reads).
   */
  cached?: Omit<CachedList, 'name'>;
  /** The record's columns, as the mapping reads them. */
  select: string;
  /** Sort keys by API field name (every sort field but `relevance`); `id` and `createdAt` included. */
  sortKeys: Record<string, SortKey>;
  /** Conditions of the caller's visibility and of the query's filters. */
  where(query: Q, params: SqlParams, caller: Caller): string[];
  /** Search matches for a search text, or null when it has no terms. */
  search?(workspaceId: string, text: string): SearchMatches | null;
  /**
   * Hide the search matches' count from DuckDB's estimator (see searchMatches): for a table
   * whose hash table DuckDB would otherwise build on every row of the workspace.
   */
  searchOnLargeTable?: boolean;
};

/** What answering a list needs besides its query: cursors, and the record cache. */
export interface ListContext {
  cursors: CursorCodec;
  records: RecordCache;
}

export interface ListParams {
  cursor?: string | undefined;
  limit?: number | undefined;
  sort?: SortOrder | undefined;
  search?: string | undefined;
}

export interface ListResponse {
  data: unknown[];
  pagination: { limit: number; nextCursor: string | null };
}

const DEFAULT_SORT: SortOrder = { field: 'createdAt', descending: true };

const NOT_DELETED = 'r.deleted_at IS NULL';

/**
 * The conditions every list's `where` starts with: rows of the caller's workspace, not deleted.
 * A searched list whose `where` is these alone chooses its page from the search index.
 */
export function liveInWorkspace(params: SqlParams, workspaceId: string): string[] {
  return [`r.workspace_id = ${params.bind(workspaceId, 'UUID')}`, NOT_DELETED];
}

/**
 * The sort keys every list has, `id` and `createdAt` of the row `r`: also the sorts a page
 * chosen from the search index can follow, since its postings carry both.
 */
export const COMMON_SORT_KEYS: Readonly<Record<'id' | 'createdAt', SortKey>> = {
  id: { expression: 'r.id', type: 'uuid' },
  createdAt: { expression: 'r.created_at', type: 'timestamp' },
};
const INDEX_SORTS = new Set(['relevance', ...Object.keys(COMMON_SORT_KEYS)]);

/**
 * Answers a list request (docs/contract.md, "Lists"): filters, optional search, the sort with `id`
 * as the last tie-breaker, one page after the cursor's key, and a signed cursor for the next page.
 */
export async function answerList<Q extends ListParams>(
  connection: DuckDBConnection,
  endpoint: ListEndpoint<Q>,
  query: Q,
  caller: Caller,
  { cursors, records }: ListContext,
): Promise<ListResponse> {
  const params = new SqlParams();
  const where = endpoint.where(query, params, caller);
  const search = query.search?.trim()
    ? (endpoint.search?.(caller.workspaceId, query.search) ?? null)
    : null;
  const sort = query.sort ?? DEFAULT_SORT;
  const fromIndex =
    search !== null &&
    endpoint.lateColumns !== false &&
    INDEX_SORTS.has(sort.field) &&
    sameConditions(where, liveInWorkspace(new SqlParams(), caller.workspaceId));
  const order = fromIndex
    ? orderParts(COMMON_SORT_KEYS, sort, 'r.rank')
    : orderParts(endpoint.sortKeys, sort, search ? '_search.rank' : null);
  const { cursor, limit: requested, ...filters } = query;
  const limit = requested ?? 50;
  const binding = canonicalJson([caller.workspaceId, caller.userId, endpoint.name, filters]);
  const last = cursor === undefined ? null : cursors.decode(cursor, binding);
  if (last !== null && last.length !== order.length) throw invalidCursor();

  const page = await readPage(connection, {
    ...rowSource(endpoint, where, search?.sql ?? null, fromIndex),
    select: endpoint.select,
    from: endpoint.from,
    ...(endpoint.lateColumns === false ? { lateColumns: false } : {}),
    order,
    limit,
    after: last,
    params,
    ...(search ? { extraParams: search.params } : {}),
    ...(endpoint.cached
      ? { records: { cache: records, list: { name: endpoint.name, ...endpoint.cached } } }
      : {}),
  });
  return {
    data: endpoint.toRecords
      ? await endpoint.toRecords(connection, page.rows, caller)
      : page.rows.map((row) => endpoint.toRecord(row, caller)),
    pagination: {
      limit,
      nextCursor: page.nextKey ? cursors.encode(binding, page.nextKey) : null,
    },
  };
}

/**
 * Where a page's rows are chosen from: the endpoint's rows and conditions, joined to the search
 * matches when there is a search; or, when the search is the only filter (`fromIndex`), the
 * matches alone, whose postings carry what the workspace, deletion and the sort need
 * (docs/search.md, "Pages from the index").
 */
function rowSource<Q>(
  endpoint: ListEndpoint<Q>,
  where: string[],
  searchSql: string | null,
  fromIndex: boolean,
): Pick<PageRequest, 'with' | 'rowsFrom' | 'filterJoin' | 'where'> {
  if (searchSql === null) {
    return { ...(endpoint.rowsFrom ? { rowsFrom: endpoint.rowsFrom } : {}), where };
  }
  if (fromIndex) {
    return {
      with: `_search AS (${searchSql})`,
      rowsFrom: '(SELECT record_id AS id, created_at, rank FROM _search WHERE live) r',
      where: [],
    };
  }
  return {
    with: searchMatches(searchSql, endpoint.searchOnLargeTable ?? false),
    ...(endpoint.rowsFrom ? { rowsFrom: endpoint.rowsFrom } : {}),
    filterJoin: 'JOIN _search ON _search.record_id = r.id',
    where,
  };
}

/**
 * The WITH clause `_search(record_id, rank)` of a search's matches. On a large table they go
 * through one list and back (an aggregate and an unnest), which hides their count from
 * DuckDB's estimator: it takes the matches for one row and builds the join's hash table on
 * them, not on every record of the workspace. Its estimate for the matches themselves (a
 * GROUP BY over the postings) is about a hundred times too high, and building on 200k
 * invoices took 12-15 ms of a search's 17. On 100k clients or 20k projects the detour costs
 * more than it saves (interleaved, p50: clients `globex` 16.8 ms with it, 14.9 without;
 * projects `portal` 13.1 and 11.1; invoices `design` 17.2 and 24.1).
 */
function searchMatches(matchSql: string, onLargeTable: boolean): string {
  if (!onLargeTable) return `_search AS (${matchSql})`;
  return `_search_matches AS (${matchSql}),
    _search AS (
      SELECT unnest(list({'record_id': record_id, 'rank': rank}), recursive := true)
      FROM _search_matches
    )`;
}

/** Whether two lists of conditions are the same, in the same order. */
function sameConditions(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((condition, i) => condition === b[i]);
}

/**
 * The sort as key parts, ending with `id`; `relevance` ranks (by `rank`, the search's rank
 * column, or alike without search terms), then falls back on the default sort.
 */
function orderParts(
  sortKeys: Record<string, SortKey>,
  sort: SortOrder,
  rank: string | null,
): OrderPart[] {
  const id = sortKeys.id!;
  const createdAt = sortKeys.createdAt!;
  if (sort.field === 'relevance') {
    // Without search terms (a search of only punctuation) every row ranks alike.
    const rankPart: OrderPart = { expression: rank ?? '0', type: 'integer', descending: false };
    return [rankPart, { ...createdAt, descending: true }, { ...id, descending: true }];
  }
  const key = sortKeys[sort.field]!;
  if (sort.field === 'id') return [{ ...id, descending: sort.descending }];
  return [
    { ...key, descending: sort.descending },
    { ...id, descending: sort.descending },
  ];
}
