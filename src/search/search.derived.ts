import path from 'node:path';
import type { DerivedTables } from '../readmodel/derived-tables.ts';
import { DERIVED_COLUMNS } from './client-names.ts';
import {
  rebuildSearchIndex,
  SEARCH_TABLES,
  SEARCHED_TABLES,
  SearchIndexUpdate,
  type SearchRefreshOptions,
} from './search-index.ts';
import { installSearch } from './search-schema.ts';

/**
 * The search index as the sync keeps it (src/readmodel/derived-tables.ts), with the client
 * names it sets on projects and invoices, refreshing up to `inProcessUpTo` touched records of a
 * batch in process (src/search/search-refresh.ts; a test sets 0 to follow every batch with the
 * SQL). Rebuilt inside the first load's copy transaction; installed (folding and macros)
 * whenever the read model opens.
 */
export const searchIndexPart = (options: SearchRefreshOptions = {}): DerivedTables => ({
  name: 'search',
  tables: SEARCH_TABLES,
  sources: {
    ...Object.fromEntries(SEARCH_TABLES.map((table) => [table, SEARCHED_TABLES])),
    // client_name_lower: the client's name (refreshClientNames).
    ...Object.fromEntries([...DERIVED_COLUMNS.keys()].map((table) => [table, ['clients']])),
  },
  sqlDir: path.join(import.meta.dirname, 'sql'),
  derivedColumns: DERIVED_COLUMNS,
  rebuildAlone: true,
  install: installSearch,
  rebuild: rebuildSearchIndex,
  batch: () => new SearchIndexUpdate(options),
});

/** The search index as the server keeps it (searchIndexPart). */
export const searchIndex: DerivedTables = searchIndexPart();
