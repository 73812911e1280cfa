/**
 * Named parameters for a DuckDB statement built from parts: each value gets a fresh
 * `$pN` placeholder, so user input is always bound, never pasted into the SQL text.
 */
export class SqlParams {
  readonly values: Record<string, string | number | boolean | null> = {};
  private next = 0;

  /** A placeholder bound to `value`, cast to `type` (DuckDB binds strings as VARCHAR). */
  bind(value: string | number | boolean | null, type?: string): string {
    const name = `p${this.next++}`;
    this.values[name] = value;
    return type ? `CAST($${name} AS ${type})` : `$${name}`;
  }

  /** `expression IN (...)` over bound values; FALSE for an empty list. */
  in(expression: string, values: readonly string[], type?: string): string {
    if (values.length === 0) return 'FALSE';
    return `${expression} IN (${values.map((v) => this.bind(v, type)).join(', ')})`;
  }
}
