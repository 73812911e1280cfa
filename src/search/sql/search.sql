-- Search (docs/search.md): the macros the search index is built and queried with.
-- Loaded on every open by src/search/search-schema.ts, after src/search/sql/search-folding.sql
-- (search_needs_folding, search_fold_chars), which this file relies on.

-- Normalization ------------------------------------------------------------------------------
-- A text becomes words in two projections (src/search/search-words.ts): strip_accents(), and
-- the part of it that needs compatibility folding (NULL for nearly all text), then
-- search_fold_exotic() on that part and search_split() on the result.

-- The characters of `exotic` through search_fold_chars (NFKD, marks stripped), Hangul
-- syllables decomposed into their jamo (Unicode's arithmetic); NULL for NULL.
-- A correlated subquery: DuckDB runs it once per distinct argument, so the argument must be a
-- column that is NULL where no folding is needed.
CREATE OR REPLACE MACRO search_hangul_jamo(s) AS
  chr(4352 + s // 588) || chr(4449 + (s % 588) // 28) || CASE WHEN s % 28 > 0 THEN chr(4519 + s % 28) ELSE '' END;
CREATE OR REPLACE MACRO search_fold_exotic(exotic) AS (
  SELECT string_agg(
    coalesce(
      f.folded,
      CASE WHEN unicode(c.ch) BETWEEN 44032 AND 55203 THEN search_hangul_jamo(unicode(c.ch) - 44032) END,
      c.ch
    ), '' ORDER BY c.i)
  FROM unnest(string_split(exotic, '')) WITH ORDINALITY AS c(ch, i)
  LEFT JOIN search_fold_chars f ON f.ch = c.ch
);

-- Case folding of NFKD text: lower(), plus the full case foldings lower() lacks (ß and ẞ -> ss,
-- final sigma -> σ; the others NFKD has already done).
CREATE OR REPLACE MACRO search_case_fold(text) AS replace(replace(lower(text), 'ß', 'ss'), 'ς', 'σ');

-- The words of a normalized text: maximal runs of Unicode letters and digits, case-folded.
CREATE OR REPLACE MACRO search_split(text) AS
  list_filter(regexp_split_to_array(search_case_fold(text), '[^\p{L}\p{N}]+'), w -> w <> '');

-- Match helpers ------------------------------------------------------------------------------

-- The helpers below are mirrored for the search text in src/search/normalize.ts (tested equal).

-- The first three characters of `s` as one integer, 17 bits each (0 past the end; characters
-- past U+1FFFF share the last value, which only widens a range), so that "starts with these
-- 1-3 characters" is a range of this integer: a filter DuckDB pushes into the scan of
-- search_vocabulary (sorted by word), skipping what cannot match. 51 bits: exact in JavaScript.
CREATE OR REPLACE MACRO search_char_code(ch) AS greatest(least(unicode(ch), 131071), 0)::BIGINT;
CREATE OR REPLACE MACRO search_code(s) AS
  (search_char_code(s[1]) << 34) | (search_char_code(s[2]) << 17) | search_char_code(s[3]);

-- A word's characters (code points) in reverse order; reverse() would keep grapheme clusters
-- (a Hangul syllable's jamo, say) together.
CREATE OR REPLACE MACRO search_reverse(word) AS array_to_string(list_reverse(string_split(word, '')), '');

-- The set of characters of a word as bits: a-z 0-25, 0-9 26-35, any other 36 + code % 16.
-- One edit adds at most one character to the set and removes at most one, so a word within
-- distance d has at most d bits the term lacks and the term at most d bits the word lacks
-- (shared bits only make this weaker, never wrong).
CREATE OR REPLACE MACRO search_letter_bit(ch) AS
  CASE
    WHEN ch BETWEEN 'a' AND 'z' THEN unicode(ch) - 97
    WHEN ch BETWEEN '0' AND '9' THEN unicode(ch) - 22
    ELSE 36 + unicode(ch) % 16
  END;
CREATE OR REPLACE MACRO search_letters(word) AS
  list_reduce(list_transform(string_split(word, ''), ch -> 1::BIGINT << search_letter_bit(ch)), (a, b) -> a | b, 0::BIGINT);
-- Damerau-Levenshtein distance in characters. damerau_levenshtein() counts bytes, so a pair
-- that is not ASCII is first rewritten with one byte per distinct character of the pair.
CREATE OR REPLACE MACRO search_as_bytes(s, alphabet) AS
  array_to_string(list_transform(string_split(s, ''), ch -> chr(list_position(alphabet, ch))), '');
CREATE OR REPLACE MACRO search_distance(a, b) AS
  CASE
    WHEN strlen(a) = length(a) AND strlen(b) = length(b) THEN damerau_levenshtein(a, b)
    ELSE damerau_levenshtein(
      search_as_bytes(a, list_sort(list_distinct(string_split(a || b, '')))),
      search_as_bytes(b, list_sort(list_distinct(string_split(a || b, ''))))
    )
  END;
-- A word that is not ASCII with each other character replaced by one placeholder byte
-- (NULL for an ASCII word), stored in search_vocabulary: its byte distance to an ASCII term is
-- the character distance of the word, since the term holds none of those characters.
CREATE OR REPLACE MACRO search_ascii_form(word) AS
  CASE WHEN strlen(word) <> length(word) THEN regexp_replace(word, '[^\x01-\x7f]', chr(1), 'g') END;

-- Index content ------------------------------------------------------------------------------

-- Whether a record of entity `kind` (its workspace `ws` and id `id`) is to be indexed: with
-- `touched` NULL every row; else `touched` is a literal list of the entities search_touched
-- lists records of, and only those records are. The list is known when the statement is
-- planned, so the branches of an entity not in it are dropped unread (a client's change does
-- not scan the 4M invoice lines of the 10M-entry workspace). The workspace is tested too,
-- which lets a scan skip other workspaces' row groups.
CREATE OR REPLACE MACRO search_is_touched(touched, kind, ws, id) AS
  touched IS NULL
  OR (list_contains(touched, kind)
    AND ws IN (SELECT workspace_id FROM search_touched)
    AND id IN (SELECT record_id FROM search_touched WHERE entity = kind));

-- The searched text of every record (with `touched`, a list of entities: only the records
-- search_touched lists, search_is_touched), as
-- (entity, workspace_id, record_id, primary_field, text); a record may have many rows, and
-- the same text many times (an invoice's lines repeat their descriptions, people, projects).
-- Related rows count whether deleted or not (a soft-deleted client still names its projects).
-- Written for the few touched records of a sync batch as much as for all: each table is
-- filtered before anything is joined to it (names come from scalar subqueries, which DuckDB
-- joins after the filter), and by workspace too, which skips other workspaces' row groups.
CREATE OR REPLACE MACRO search_fields(touched) AS TABLE
SELECT CAST('client' AS search_entity) AS entity, workspace_id, id AS record_id, true AS primary_field, name AS text
FROM clients
WHERE search_is_touched(touched, 'client', workspace_id, id)
UNION ALL
SELECT CAST('client' AS search_entity), workspace_id, id, false,
  concat_ws(' ', contact_name, email, billing_email, phone, website, tax_number, notes,
    billing_address, billing_line1, billing_line2, billing_city, billing_region,
    billing_postal_code, billing_country)
FROM clients
WHERE search_is_touched(touched, 'client', workspace_id, id)
UNION ALL
SELECT CAST('project' AS search_entity), workspace_id, id, true, name
FROM projects
WHERE search_is_touched(touched, 'project', workspace_id, id)
UNION ALL
SELECT CAST('project' AS search_entity), p.workspace_id, p.id, false,
  concat_ws(' ', p.description, (SELECT c.name FROM clients c WHERE c.id = p.client_id))
FROM projects p
WHERE search_is_touched(touched, 'project', p.workspace_id, p.id)
UNION ALL
SELECT CAST('project' AS search_entity), pm.workspace_id, pm.project_id, false,
  (SELECT u.name FROM users u WHERE u.workspace_id = pm.workspace_id AND u.id = pm.user_id)
FROM project_members pm
WHERE search_is_touched(touched, 'project', pm.workspace_id, pm.project_id)
UNION ALL
SELECT CAST('invoice' AS search_entity), workspace_id, id, true, number
FROM invoices
WHERE search_is_touched(touched, 'invoice', workspace_id, id)
UNION ALL
SELECT CAST('invoice' AS search_entity), i.workspace_id, i.id, false,
  concat_ws(' ', i.bill_to_name, i.po_number, i.notes, (SELECT c.name FROM clients c WHERE c.id = i.client_id))
FROM invoices i
WHERE search_is_touched(touched, 'invoice', i.workspace_id, i.id)
UNION ALL
SELECT CAST('invoice' AS search_entity), workspace_id, invoice_id, false, unnest([description, subtitle, detail, group_label])
FROM invoice_lines
WHERE search_is_touched(touched, 'invoice', workspace_id, invoice_id);

-- Each record's created_at and whether it is not deleted (with `touched`: only the records
-- listed in search_touched), which its postings carry: a list page whose only filter is a
-- search is chosen from the postings alone (docs/search.md).
CREATE OR REPLACE MACRO search_records(touched) AS TABLE
SELECT CAST('client' AS search_entity) AS entity, id AS record_id, created_at, deleted_at IS NULL AS live
FROM clients
WHERE search_is_touched(touched, 'client', workspace_id, id)
UNION ALL
SELECT CAST('project' AS search_entity), id, created_at, deleted_at IS NULL
FROM projects
WHERE search_is_touched(touched, 'project', workspace_id, id)
UNION ALL
SELECT CAST('invoice' AS search_entity), id, created_at, deleted_at IS NULL
FROM invoices
WHERE search_is_touched(touched, 'invoice', workspace_id, id);
