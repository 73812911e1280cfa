import { exportJournal } from '../exports/export-journal.ts';
import type { DerivedTables } from '../readmodel/derived-tables.ts';
import { searchIndex } from '../search/search-index.ts';
import { summaries } from '../summaries/summaries.ts';

/**
 * The derived parts of the read model that the sync keeps (src/readmodel/derived-tables.ts),
 * in the order it calls them in every flush and rebuild. Registered here, at the composition
 * root, so that the sync names none of them; the server, the tests and the benchmarks all
 * hand the sync this one list.
 */
export const DERIVED_TABLES: readonly DerivedTables[] = [searchIndex, summaries, exportJournal];
