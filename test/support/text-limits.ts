import type pg from 'pg';

/** What else a row must say for a column to take any text (the store's other CHECKs). */
export const ALSO: Record<string, string> = {
  'expenses.custom_category': ", category = 'OTHER'",
};

/** The longest text a column of the store holds, as its CHECK says (sql/postgres/0010). */
export interface TextLimit {
  table: string;
  column: string;
  /** text: characters; array: characters of each element (and `items` elements); json: characters of its text form. */
  kind: 'text' | 'array' | 'json';
  max: number;
  items?: number;
}

/** Text, text array and jsonb columns of the synced tables, and the CHECKs that bound them. */
export async function storeTextColumns(
  pool: pg.Pool,
): Promise<{ columns: { table: string; column: string; type: string }[]; checks: string[] }> {
  const columns = await pool.query<{ table: string; column: string; type: string }>(
    `SELECT c.table_name AS table, c.column_name AS column, c.udt_name AS type
     FROM information_schema.columns c
     JOIN pg_publication_tables p
       ON p.pubname = 'ledgerline_read_model' AND p.schemaname = c.table_schema AND p.tablename = c.table_name
     WHERE c.table_schema = current_schema() AND c.udt_name IN ('text', '_text', 'jsonb')
     ORDER BY c.table_name, c.ordinal_position`,
  );
  const checks = await pool.query<{ table: string; definition: string }>(
    `SELECT t.relname AS table, pg_get_constraintdef(k.oid) AS definition
     FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid
     JOIN pg_publication_tables p
       ON p.pubname = 'ledgerline_read_model' AND p.tablename = t.relname
     WHERE k.contype = 'c'`,
  );
  return {
    columns: columns.rows,
    checks: checks.rows.map((r) => `${r.table}: ${r.definition}`),
  };
}

/**
 * Each bounded column's limit, read from the text of its CHECK: `char_length(x) <= N`,
 * `length(x) >= 1 AND length(x) <= N` (BETWEEN as PostgreSQL prints it), `cardinality(x) <= I
 * AND text_array_longest(x) <= N`, `char_length((x)::text) <= N` for jsonb.
 */
export async function storeTextLimits(pool: pg.Pool): Promise<Map<string, TextLimit>> {
  const { columns, checks } = await storeTextColumns(pool);
  const limits = new Map<string, TextLimit>();
  for (const { table, column, type } of columns) {
    const on = checks.filter((c) => c.startsWith(`${table}: `));
    const number = (pattern: RegExp) => {
      for (const check of on) {
        const found = pattern.exec(check);
        if (found) return Number(found[1]);
      }
      return undefined;
    };
    const name = column.replace(/[^a-z0-9_]/g, '');
    if (type === '_text') {
      const max = number(new RegExp(`text_array_longest\\(${name}\\) <= (\\d+)`));
      const items = number(new RegExp(`cardinality\\(${name}\\) <= (\\d+)`));
      if (max !== undefined && items !== undefined)
        limits.set(`${table}.${column}`, { table, column, kind: 'array', max, items });
      continue;
    }
    const max =
      type === 'jsonb'
        ? number(new RegExp(`char_length\\(\\(${name}\\)::text\\) <= (\\d+)`))
        : number(new RegExp(`(?:char_)?length\\(${name}\\) <= (\\d+)`));
    if (max !== undefined)
      limits.set(`${table}.${column}`, {
        table,
        column,
        kind: type === 'jsonb' ? 'json' : 'text',
        max,
      });
  }
  return limits;
}

/**
 * `n` characters (code points) of text that breaks parsers: commas, both quotes, a newline,
 * a carriage return, a tab, backslashes, a semicolon, braces, and a character outside the
 * BMP, repeated and cut to length; `variant` starts it, so that two writes differ.
 */
export function largestText(n: number, variant: string): string {
  const unit = [...`${variant}:a,"b"\n'c'\r\t\\d\\;{e}𝄞 `];
  const out: string[] = [];
  while (out.length < n) out.push(...unit);
  return out.slice(0, n).join('');
}

/** A JSON object whose text form (as PostgreSQL prints jsonb: `{"v": "…"}`) is at most `n` characters, as long as it can be. */
export function largestJson(n: number, variant: string): string {
  const printed = (k: number) =>
    [...JSON.stringify({ v: largestText(k, variant) }).replace('":', '": ')].length;
  let [low, high] = [0, n];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (printed(mid) <= n) low = mid;
    else high = mid - 1;
  }
  return JSON.stringify({ v: largestText(low, variant) });
}

/**
 * Writes, straight into the store, the longest value every bounded text, text array and JSON
 * column of the synced tables holds (sql/postgres/0010_text_lengths.sql), into one row of
 * each table, in one transaction: values full of what breaks parsers (test/support/text-limits.ts).
 */
export async function writeLargest(pool: pg.Pool, variant: string): Promise<void> {
  const limits = [...(await storeTextLimits(pool)).values()];
  if (limits.length < 50) throw new Error(`Only ${limits.length} bounded columns found`);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const { table, column, kind, max, items } of limits) {
      const value =
        kind === 'array'
          ? Array.from({ length: items! }, (_, i) => largestText(max, `${variant}${i}`))
          : kind === 'json'
            ? largestJson(max, variant)
            : largestText(max, variant);
      const cast = kind === 'array' ? '::text[]' : kind === 'json' ? '::jsonb' : '';
      const written = await client.query(
        `UPDATE ${table} SET ${column} = $1${cast}${ALSO[`${table}.${column}`] ?? ''}
         WHERE ctid = (SELECT ctid FROM ${table} ORDER BY ctid LIMIT 1)`,
        [value],
      );
      if (written.rowCount !== 1) throw new Error(`${table} has no row to write ${column} into`);
    }
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}
