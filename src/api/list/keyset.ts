import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { readAll } from '../../readmodel/read-all.ts';
import type { CachedList, RecordCache } from '../../readmodel/record-cache.ts';
import { SqlParams, sqlLiteral } from '../../readmodel/sql-params.ts';

/** How a sort key compares: timestamps by microseconds since 1970, the rest by value. */
export type KeyType = 'timestamp' | 'date' | 'decimal' | 'integer' | 'text' | 'uuid';

export interface SortKey {
  /** SQL over the list's FROM clause. */
  expression: string;
  type: KeyType;
  /** NULLs sort last in either direction. */
  nullable?: boolean;
}

export interface OrderPart extends SortKey {
  descending: boolean;
}

const BIND_TYPE: Record<KeyType, string> = {
  timestamp: 'BIGINT',
  date: 'DATE',
  decimal: 'DECIMAL(18,4)',
  integer: 'BIGINT',
  text: 'VARCHAR',
  uuid: 'UUID',
};

/**
 * The type a key's value is bound as. A decimal key is DECIMAL(18,4), the amounts' own type,
 * unless the value is a sum beyond it (a bill's total of 10^14 or more): DECIMAL(38,4) then.
 */
function bindType(type: KeyType, value: string): string {
  if (type !== 'decimal' || sqlLiteral(value, 'DECIMAL(18,4)') !== null) {
    return BIND_TYPE[type];
  }
  return 'DECIMAL(38,4)';
}

function keyExpression(part: SortKey): string {
  return part.type === 'timestamp' ? `epoch_us(${part.expression})` : part.expression;
}

/**
 * ORDER BY of the parts, NULLs last. Timestamps sort by the column itself (the same order as
 * their microseconds, and DuckDB's top-N runs faster on the plain column).
 */
export function orderBy(parts: readonly OrderPart[]): string {
  return parts.map((p) => `${p.expression} ${p.descending ? 'DESC' : 'ASC'} NULLS LAST`).join(', ');
}

/** Select-list items carrying each row's sort key as text (`_k0`, `_k1`, ...), for its cursor. */
export function keyColumns(parts: readonly OrderPart[]): string {
  return parts.map((p, i) => `CAST(${keyExpression(p)} AS VARCHAR) AS _k${i}`).join(', ');
}

/**
 * Rows strictly after the row whose sort key is `last`, in the order of `parts` (keyset
 * pagination): a page starts where the previous one ended, whatever was inserted meanwhile,
 * and never repeats or skips a row. The last part must be unique (the id).
 */
export function after(
  parts: readonly OrderPart[],
  last: readonly (string | null)[],
  params: SqlParams,
): string {
  if (last.length !== parts.length) throw new Error('cursor key does not fit the sort');
  const condition = (i: number): string => {
    const part = parts[i]!;
    const column = keyExpression(part);
    const value = last[i];
    if (value === null || value === undefined) {
      // Only NULLs follow a NULL (they sort last); among them the next parts decide.
      return i === parts.length - 1 ? 'FALSE' : `(${column} IS NULL AND ${condition(i + 1)})`;
    }
    const bound = params.bind(value, bindType(part.type, value));
    const beyond = `${column} ${part.descending ? '<' : '>'} ${bound}`;
    if (i === parts.length - 1) return beyond;
    const nulls = part.nullable ? `${column} IS NULL OR ` : '';
    return `(${nulls}${beyond} OR (${column} = ${bound} AND ${condition(i + 1)}))`;
  };
  return condition(0);
}

export interface PageRequest {
  /** WITH clause (without the keyword) that the FROM clause may use, e.g. search matches. */
  with?: string;
  select: string;
  from: string;
  /** FROM of the row-choosing query when `from` joins tables only for the columns. */
  rowsFrom?: string;
  /** Joins only the row-choosing query needs (the search matches). */
  filterJoin?: string;
  /**
   * Choose the page's ids first, reading only the filter and sort columns, then read the
   * page's columns for those rows alone (default). A FROM over a view sets false: joining
   * back would compute the view again.
   */
  lateColumns?: boolean;
  where: readonly string[];
  order: readonly OrderPart[];
  limit: number;
  /** The sort key of the previous page's last row. */
  after: readonly (string | null)[] | null;
  params: SqlParams;
  /** Extra bound parameters (those of the WITH clause). */
  extraParams?: Record<string, DuckDBValue>;
  /**
   * Where the page's rows may already be (late columns only): the ids are chosen in DuckDB,
   * and only the rows not in the cache are read back.
   */
  records?: { cache: RecordCache; list: CachedList };
}

export interface Page {
  rows: Record<string, unknown>[];
  /** The sort key of the page's last row when more rows follow, else null. */
  nextKey: (string | null)[] | null;
}

/** Reads one page: `limit` rows after the cursor's key, plus one to learn whether more follow. */
export async function readPage(connection: DuckDBConnection, request: PageRequest): Promise<Page> {
  const where = [...request.where];
  if (request.after) where.push(after(request.order, request.after, request.params));
  const condition = where.length > 0 ? where.join(' AND ') : 'TRUE';
  const filterFrom = `${request.rowsFrom ?? request.from} ${request.filterJoin ?? ''}`;
  const late = request.lateColumns ?? true;
  if (late && request.records) return readCachedPage(connection, request, filterFrom, condition);
  let text: string;
  if (late) {
    // DuckDB would otherwise compute every selected column of every matching row before its
    // top-N; here only the sort keys are, and the 51 rows' columns afterwards.
    text = `WITH ${request.with ? `${request.with}, ` : ''}_page AS (
        ${chosenRows(request, filterFrom, condition)})
      SELECT ${request.select}, ${pageKeyTexts(request.order)}
      FROM ${request.from} JOIN _page ON r.id = _page._id
      ORDER BY ${pageOrder(request.order)}`;
  } else {
    text = `${request.with ? `WITH ${request.with} ` : ''}SELECT ${request.select}, ${keyColumns(request.order)}
      FROM ${filterFrom} WHERE ${condition}
      ORDER BY ${orderBy(request.order)} LIMIT ${request.limit + 1}`;
  }
  const reader = await readAll(connection, text, {
    ...request.params.values,
    ...request.extraParams,
  });
  return toPage(reader.getRowObjectsJS(), request);
}

/**
 * The page's rows chosen by the filter and sort columns alone: `_id` and the raw sort keys
 * `_s0`, `_s1`, ..., one row more than the page to know whether more follow.
 */
function chosenRows(request: PageRequest, filterFrom: string, condition: string): string {
  const sortKeys = request.order.map((p, i) => `${p.expression} AS _s${i}`).join(', ');
  return `SELECT r.id AS _id, ${sortKeys} FROM ${filterFrom} WHERE ${condition}
    ORDER BY ${orderBy(request.order)} LIMIT ${request.limit + 1}`;
}

/** The chosen rows' sort keys (`_page._sN`) as text for the cursor, `_k0`, `_k1`, ... */
function pageKeyTexts(order: readonly OrderPart[]): string {
  return order
    .map(
      (p, i) => `CAST(${keyExpression({ ...p, expression: `_page._s${i}` })} AS VARCHAR) AS _k${i}`,
    )
    .join(', ');
}

/** The chosen rows (`_page`) in the page's order. */
function pageOrder(order: readonly OrderPart[]): string {
  return order.map((p, i) => `_page._s${i} ${p.descending ? 'DESC' : 'ASC'} NULLS LAST`).join(', ');
}

/**
 * The page's ids and sort keys from DuckDB, its rows from the record cache; rows the cache
 * lacks are read by id. A row deleted between the two steps is left out of the page.
 */
async function readCachedPage(
  connection: DuckDBConnection,
  request: PageRequest,
  filterFrom: string,
  condition: string,
): Promise<Page> {
  const { cache, list } = request.records!;
  const keys = await readAll(
    connection,
    `${request.with ? `WITH ${request.with} ` : ''}SELECT CAST(_page._id AS VARCHAR) AS _id, ${pageKeyTexts(request.order)}
     FROM (${chosenRows(request, filterFrom, condition)}) _page
     ORDER BY ${pageOrder(request.order)}`,
    { ...request.params.values, ...request.extraParams },
  );
  const chosen = keys.getRowObjectsJS() as Record<string, unknown>[];
  const ids = chosen.map((k) => String(k._id));
  const rows = await cache.rows(list, ids, async (missing) => {
    const params = new SqlParams();
    const read = await readAll(
      connection,
      `SELECT ${request.select} FROM ${request.from} WHERE ${params.in('r.id', missing, 'UUID')}`,
      params.values,
    );
    return read.getRowObjectsJS();
  });
  // Over the ids chosen (limit + 1, whether or not their rows remain) so that `more` holds.
  const page = toPage(chosen, request);
  return {
    nextKey: page.nextKey,
    rows: page.rows.flatMap((k) => {
      const row = rows.get(String(k._id));
      return row ? [row] : [];
    }),
  };
}

function toPage(rows: Record<string, unknown>[], request: PageRequest): Page {
  const more = rows.length > request.limit;
  const page = more ? rows.slice(0, request.limit) : rows;
  const last = page[page.length - 1];
  return {
    rows: page,
    nextKey:
      more && last
        ? request.order.map((_, i) => {
            const key = last[`_k${i}`];
            return typeof key === 'string' ? key : null;
          })
        : null,
  };
}
