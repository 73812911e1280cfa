import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { rebuildSearchIndex } from './search-index.ts';

const SEARCH_SQL_DIR = path.resolve(import.meta.dirname, 'sql');

/**
 * Installs search into a read model being opened (its tables exist): the character folding of
 * src/search/sql/search-folding.sql and the macros of src/search/sql/search.sql. The index holds what
 * those files computed when it was built (normalized words, codes); when either file is not
 * what the index was built with (a new read model, a regenerated folding, a changed macro),
 * both are installed again and the index is rebuilt here, in one transaction. Otherwise the
 * read model holds them already (whoever installs others records their version here).
 */
export async function installSearch(connection: DuckDBConnection): Promise<void> {
  const folding = await readFile(path.join(SEARCH_SQL_DIR, 'search-folding.sql'), 'utf8');
  const macros = await readFile(path.join(SEARCH_SQL_DIR, 'search.sql'), 'utf8');
  const version = createHash('sha256').update(folding).update(macros).digest('hex');
  const built = (
    await connection.runAndReadAll('SELECT sql_sha256 FROM search_meta')
  ).getRows()[0]?.[0];
  // The folding and the macros stay in the file with the index they built.
  if (built === version) return;
  await connection.run(folding);
  await connection.run(macros);
  await connection.run('BEGIN TRANSACTION');
  try {
    // A new read model has nothing to index yet (its first load builds the index).
    const records = await connection.runAndReadAll(
      'SELECT EXISTS (FROM clients) OR EXISTS (FROM projects) OR EXISTS (FROM invoices)',
    );
    if (records.getRows()[0]?.[0] === true) await rebuildSearchIndex(connection);
    await connection.run('DELETE FROM search_meta');
    await connection.run('INSERT INTO search_meta VALUES ($version)', { version });
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
