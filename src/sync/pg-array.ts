/**
 * Parses a one-dimensional PostgreSQL array literal as logical replication sends it
 * (`{a,"b c","say \"hi\""}`, `NULL` for a null element) into its elements.
 */
export function parsePgArray(text: string): (string | null)[] {
  if (!text.startsWith('{') || !text.endsWith('}'))
    throw new Error(`Not an array literal: ${text}`);
  const out: (string | null)[] = [];
  const body = text.slice(1, -1);
  if (body === '') return out;
  let i = 0;
  while (i <= body.length) {
    if (body[i] === '"') {
      let value = '';
      i++;
      while (i < body.length && body[i] !== '"') {
        if (body[i] === '\\') i++;
        value += body[i];
        i++;
      }
      out.push(value);
      i += 2; // closing quote and comma
    } else {
      const end = body.indexOf(',', i);
      const raw = end === -1 ? body.slice(i) : body.slice(i, end);
      out.push(raw === 'NULL' ? null : raw);
      i = end === -1 ? body.length + 1 : end + 1;
    }
  }
  return out;
}
