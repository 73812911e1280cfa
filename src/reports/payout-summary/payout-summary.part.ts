import path from 'node:path';
import type { ReadModelPart } from '../../readmodel/derived-tables.ts';

/**
 * The payout summary's SQL (its views, over the team-payout tables), which the read model
 * installs when it opens. The summary keeps no tables of its own.
 */
export const payoutSummarySql: ReadModelPart = {
  sqlDir: path.join(import.meta.dirname, 'sql'),
};
