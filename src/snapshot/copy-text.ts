/**
 * Encoding of values for PostgreSQL's COPY text format: tab-separated columns, `\N` for
 * NULL, backslash escapes for the characters that would otherwise end a column or row.
 */
export function copyField(value: string | null): string {
  if (value === null) return '\\N';
  // Most values need no escape; testing first is much cheaper than always replacing.
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(ESCAPED, (c) =>
    c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
  );
}

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPED = /[\\\t\n\r]/g;

/** A PostgreSQL array literal of text values: `{"a","b \"c\""}`. */
export function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

export function copyRow(values: readonly (string | null)[]): string {
  return `${values.map(copyField).join('\t')}\n`;
}
