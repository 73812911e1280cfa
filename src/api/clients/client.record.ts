import type { z } from 'zod';
import { clientEntity } from '../../entities/client.entity.ts';
import { rowToRecord, selectColumns } from '../entity-record.ts';

/** A client as the API answers it (docs/contract.md, "Client"). */
export const clientRecord = clientEntity.record;
export type ClientRecord = z.infer<typeof clientRecord>;

/** Columns a client row carries, in both stores (DECIMAL cast to text in DuckDB). */
export const CLIENT_COLUMNS = selectColumns(clientEntity);

const clientFields = rowToRecord(clientEntity);

/**
 * A client row to its record. `baseCurrency` (the workspace's) gives the rate's scale when
 * the client has no currency of its own.
 */
export function clientRowToRecord(
  row: Record<string, unknown>,
  baseCurrency: string,
): ClientRecord {
  return clientFields(row, { defaultCurrency: baseCurrency });
}
