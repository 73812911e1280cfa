import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { beforeAudit } from '../../entities/entity.ts';
import { payeeCreditEntity, payeeEntity, payeeRateEntity } from '../../entities/payee.entity.ts';
import { rowToRecord, selectColumns } from '../../api/entity-record.ts';
import { text } from '../../api/record-values.ts';
import { sortKeys } from '../../api/list-filters.ts';
import type { Caller } from '../../api/caller.ts';
import type { ListEndpoint } from '../../api/list/list-endpoint.ts';
import { currencyText, listQuery, once } from '../../api/list/list-query.ts';
import { SqlParams } from '../../readmodel/sql-params.ts';
import { links, linksRecord } from './links.ts';
import { readAll } from '../../readmodel/read-all.ts';

/**
 * A payee as the API answers it (docs/contract.md, "Team payee"): its live rates and credits inside
 * it.
 */
export const payeeRecord = z.object({
  ...beforeAudit(payeeEntity.record.shape, {
    rates: z.array(payeeRateEntity.record),
    credits: z.array(payeeCreditEntity.record),
  }),
  links: linksRecord,
});
export type PayeeRecord = z.infer<typeof payeeRecord>;

export const PAYEE_SORT_FIELDS = ['id', 'name', 'createdAt', 'updatedAt'] as const;

/** GET /team-payouts/payees query (docs/contract.md, "Team payout queries"); strict. */
export const payeeListQuery = listQuery(PAYEE_SORT_FIELDS, {
  userId: once(z.uuid()).optional(),
  currency: once(currencyText).optional(),
});
export type PayeeListQuery = z.output<typeof payeeListQuery>;

const PAYEE_COLUMNS = selectColumns(payeeEntity);
const payeeFields = rowToRecord(payeeEntity);
const rateFields = rowToRecord(payeeRateEntity);
const creditFields = rowToRecord(payeeCreditEntity);

/** The live rates (by effective date) and credits of the payees `ids`, in one query each. */
async function payeeRecords(
  connection: DuckDBConnection,
  rows: Record<string, unknown>[],
): Promise<PayeeRecord[]> {
  const ids = rows.map((r) => text(r.id)!);
  if (ids.length === 0) return [];
  const params = new SqlParams();
  const ofPayees = params.in('payee_id', ids, 'UUID');
  const rates = (
    await readAll(
      connection,
      `SELECT ${selectColumns(payeeRateEntity)}, r.payee_id
       FROM payee_rates r WHERE r.deleted_at IS NULL AND ${ofPayees}
       ORDER BY r.effective_from, r.id`,
      params.values,
    )
  ).getRowObjectsJS();
  const credits = (
    await readAll(
      connection,
      `SELECT ${selectColumns(payeeCreditEntity)}, r.payee_id
       FROM payee_credits r WHERE r.deleted_at IS NULL AND ${ofPayees}
       ORDER BY r.created_at, r.id`,
      params.values,
    )
  ).getRowObjectsJS();
  return rows.map((row) => {
    const id = text(row.id)!;
    return assemblePayee(
      row,
      rates.filter((r) => text(r.payee_id) === id),
      credits.filter((c) => text(c.payee_id) === id),
    );
  });
}

/** The columns of a payee's live rates and credits, in the order its record lists them. */
export const PAYEE_PARTS_SQL = {
  rates: `SELECT ${selectColumns(payeeRateEntity)} FROM payee_rates r
          WHERE r.deleted_at IS NULL AND r.payee_id = $1 ORDER BY r.effective_from, r.id`,
  credits: `SELECT ${selectColumns(payeeCreditEntity)} FROM payee_credits r
            WHERE r.deleted_at IS NULL AND r.payee_id = $1 ORDER BY r.created_at, r.id`,
};

/**
 * A payee's record from its row and its live rates and credits (rows of either store: the
 * webhook events build it from PostgreSQL's, src/cli/webhook-records.ts).
 */
export function assemblePayee(
  row: Record<string, unknown>,
  rates: Record<string, unknown>[],
  credits: Record<string, unknown>[],
): PayeeRecord {
  const id = text(row.id)!;
  return {
    ...beforeAudit(payeeFields(row), {
      rates: rates.map((r) => rateFields(r)),
      credits: credits.map((c) => creditFields(c)),
    }),
    links: links(`/app/team-payouts/payees/${id}`, { payeeId: id }),
  };
}

export const payeeList: ListEndpoint<PayeeListQuery> = {
  name: 'team-payouts/payees',
  from: 'payees r',
  select: PAYEE_COLUMNS,
  sortKeys: sortKeys({
    name: { expression: 'lower(r.name)', type: 'text' },
    updatedAt: { expression: 'r.updated_at', type: 'timestamp' },
  }),
  where(query: PayeeListQuery, params: SqlParams, caller: Caller): string[] {
    return [
      `r.workspace_id = ${params.bind(caller.workspaceId, 'UUID')}`,
      'r.deleted_at IS NULL',
      ...(query.userId ? [`r.user_id = ${params.bind(query.userId, 'UUID')}`] : []),
      ...(query.currency
        ? [
            `EXISTS (SELECT 1 FROM payee_rates pr WHERE pr.payee_id = r.id AND pr.deleted_at IS NULL AND pr.currency = ${params.bind(query.currency, 'CURRENCY')})`,
          ]
        : []),
      // Search: a case-insensitive part of the payee's name or email.
      ...(query.search?.trim()
        ? [
            `(contains(lower(r.name), lower(${params.bind(query.search.trim())})) OR contains(lower(coalesce(r.email, '')), lower(${params.bind(query.search.trim())})))`,
          ]
        : []),
    ];
  },
  toRecords: (connection, rows) => payeeRecords(connection, rows),
};

/** One live payee of the workspace, or undefined. */
export async function findPayee(
  connection: DuckDBConnection,
  workspaceId: string,
  id: string,
): Promise<PayeeRecord | undefined> {
  const rows = (
    await readAll(
      connection,
      `SELECT ${PAYEE_COLUMNS} FROM payees r WHERE r.id = $id::UUID AND r.workspace_id = $ws::UUID AND r.deleted_at IS NULL`,
      { id, ws: workspaceId },
    )
  ).getRowObjectsJS();
  return (await payeeRecords(connection, rows))[0];
}
