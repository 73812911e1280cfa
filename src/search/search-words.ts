/**
 * SQL of a query over `source` (a table, or a subquery in parentheses, with the columns `keys`
 * and a VARCHAR `text`) yielding `keys` and `word`: one row per distinct word of each key's
 * text. The one normalization of search (docs/search.md): the index is built from it and the
 * search text is cut into terms by it, so both always agree.
 *
 * NFKD without marks is strip_accents() plus the compatibility foldings of
 * src/search/sql/search-folding.sql, which only text that holds such a character pays for; then
 * case folding and a split on everything that is not a Unicode letter or digit (search.sql).
 */
export function wordsSql(source: string, keys: readonly string[]): string {
  const k = keys.map((key) => `${key}, `).join('');
  return `SELECT DISTINCT ${k}word
FROM (
  SELECT ${k}unnest(search_split(coalesce(search_fold_exotic(exotic), text))) AS word
  FROM (
    SELECT ${k}text, CASE WHEN search_needs_folding(text) THEN text END AS exotic
    FROM (SELECT ${k}strip_accents(text) AS text FROM ${source} WHERE text IS NOT NULL)
  )
)`;
}
