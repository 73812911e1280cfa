import type { z } from 'zod';
import type { Caller } from '../caller.ts';
import { rowToRecord, selectColumns } from '../entity-record.ts';
import { text } from '../record-values.ts';
import { PROJECT_PRICING, projectEntity } from '../../entities/project.entity.ts';

/**
 * A project as the API answers it (docs/contract.md, "Project"). The rate fields are absent for
 * Member tokens: compensation and pricing are not theirs to see.
 */
export const projectRecord = projectEntity.record;
export type ProjectRecord = z.infer<typeof projectRecord>;

/**
 * Columns of a project row; `money_currency` is the currency its amounts are in: the
 * client's, else the workspace's base currency.
 */
export const PROJECT_COLUMNS = `${selectColumns(projectEntity)},
  coalesce(c.currency, w.base_currency) AS money_currency`;

const projectFields = rowToRecord(projectEntity);

export function projectRowToRecord(row: Record<string, unknown>, caller: Caller): ProjectRecord {
  const record = projectFields(row, { currency: text(row.money_currency) ?? caller.baseCurrency });
  if (caller.role === 'MEMBER') for (const field of PROJECT_PRICING) delete record[field];
  return record;
}
