import type { DuckDBConnection, Json } from '@duckdb/node-api';
import { SqlParams } from '../../readmodel/sql-params.ts';
import { formatAmount } from '../../money/money.ts';
import type { PayoutSummary, PayoutSummaryCurrency } from './payout-summary.schema.ts';
import { readAll } from '../../readmodel/read-all.ts';

export interface PayoutSummaryParams {
  workspaceId: string;
  /** Narrows `currencies`, the top-level `eligibleSeconds` and the last payment. */
  currency?: string;
  /** Today in the workspace time zone (YYYY-MM-DD): a bill due before it is overdue. */
  today: string;
  /** Caller is Owner or Admin and has the `write` scope (docs/contract.md, "Summary totals"). */
  canManage: boolean;
}

// The rules live in the table macros of sql/views/payout_summary_*.sql; these two
// statements only pass the caller's values to them, as checked literals where they have the
// form (sqlLiteral: DuckDB binds a statement with parameters twice).
function summarySql(params: PayoutSummaryParams) {
  const sql = new SqlParams();
  const ws = sql.bind(params.workspaceId, 'UUID');
  const currency =
    params.currency === undefined ? 'NULL::VARCHAR' : sql.bind(params.currency, 'CURRENCY');
  const currencies = `
    SELECT *
    FROM payout_summary_currencies(${ws}, ${sql.bind(params.today, 'DATE')})
    WHERE ${currency} IS NULL OR currency = ${currency}
    ORDER BY currency`;
  const totals = `SELECT * FROM payout_summary_totals(${ws}, ${currency})`;
  return { currencies, totals, sql };
}

type Row = Record<string, Json>;

/**
 * The team payout summary of one workspace, answered from the read model. Its two reads run
 * in one transaction, so both see the same sync; `connection` must not be inside one already.
 */
export async function loadPayoutSummary(
  connection: DuckDBConnection,
  params: PayoutSummaryParams,
): Promise<PayoutSummary> {
  const statements = summarySql(params);
  const read = (text: string) => readAll(connection, text, statements.sql.valuesIn(text));
  await connection.run('BEGIN TRANSACTION');
  try {
    const currencies = await read(statements.currencies);
    const totals = await read(statements.totals);
    const [totalsRow] = totals.getRowObjectsJson();
    if (!totalsRow) throw new Error('payout_summary_totals returned no row');
    return rowsToPayoutSummary(currencies.getRowObjectsJson(), totalsRow, params.canManage);
  } finally {
    // Nothing was written: ROLLBACK ends the read transaction, also after a failed read.
    await connection.run('ROLLBACK');
  }
}

/**
 * Turns the rows of payout_summary_currencies and payout_summary_totals into the API record:
 * camelCase names, money formatted to its currency's scale. A missing figure is an error,
 * never a silent 0.
 */
function rowsToPayoutSummary(
  currencyRows: readonly Row[],
  totals: Row,
  canManage: boolean,
): PayoutSummary {
  const currencies = currencyRows.map(rowToCurrency);
  const lastCurrency = optionalText(totals, 'last_payment_currency');
  const lastAmount = optionalText(totals, 'last_payment_amount');
  return {
    canManage,
    currencies,
    missingRateCount: integer(totals, 'missing_rate_count'),
    eligibleSeconds: currencies.reduce((sum, c) => sum + c.eligibleSeconds, 0),
    memberCount: integer(totals, 'member_count'),
    lastPaymentDate: optionalText(totals, 'last_payment_date'),
    lastPaymentAmount:
      lastAmount === null || lastCurrency === null ? null : formatAmount(lastAmount, lastCurrency),
    lastPaymentCurrency: lastCurrency,
  };
}

function rowToCurrency(row: Row): PayoutSummaryCurrency {
  const currency = text(row, 'currency');
  const money = (column: string) => formatAmount(text(row, column), currency);
  return {
    currency,
    eligibleSeconds: integer(row, 'eligible_seconds'),
    unbilledFrom: optionalText(row, 'unbilled_from'),
    unbilledTo: optionalText(row, 'unbilled_to'),
    accrued: money('accrued'),
    approved: money('approved'),
    paid: money('paid'),
    outstanding: money('outstanding'),
    overdue: money('overdue'),
    credit: money('credit'),
  };
}

// DuckDB's JSON rows give DECIMAL, DATE and BIGINT values as strings, INTEGER as a number.

function optionalText(row: Row, column: string): string | null {
  const value = row[column];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new Error(`${column}: expected text, got ${typeof value}`);
  return value;
}

function text(row: Row, column: string): string {
  const value = optionalText(row, column);
  if (value === null) throw new Error(`${column}: expected a value, got null`);
  return value;
}

function integer(row: Row, column: string): number {
  const value = row[column];
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  if (!Number.isSafeInteger(n))
    throw new Error(`${column}: expected an integer, got ${JSON.stringify(value)}`);
  return n;
}
