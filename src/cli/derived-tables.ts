import { exportJournal } from '../exports/export-journal.ts';
import type { DerivedTables, ReadModelPart } from '../readmodel/derived-tables.ts';
import { payoutSummarySql } from '../reports/payout-summary/payout-summary.part.ts';
import { profitabilityTables } from '../reports/profitability/profitability.derived.ts';
import { teamPayoutTables } from '../reports/team-payouts/team-payouts.derived.ts';
import { searchIndex } from '../search/search.derived.ts';

/**
 * The derived parts of the read model that the sync keeps (src/readmodel/derived-tables.ts),
 * in the order it calls them in every flush and rebuild. Registered here, at the composition
 * root, so that the sync names none of them; the server, the tests and the benchmarks all
 * hand the sync this one list.
 *
 * The order is a dependency: profitability's priced facts read team_bill_figures, so the
 * team-payout part comes first, and its `finish` (or `rebuild`) has brought the bills' figures
 * up to date before profitability's prices entries from them.
 */
export const DERIVED_TABLES: readonly DerivedTables[] = [
  searchIndex,
  teamPayoutTables,
  profitabilityTables,
  exportJournal,
];

/**
 * Everything the read model installs besides the copied tables when it opens: the derived
 * parts' tables and SQL, and the SQL of reports that keep no tables (the payout summary).
 */
export const READ_MODEL_PARTS: readonly ReadModelPart[] = [...DERIVED_TABLES, payoutSummarySql];
