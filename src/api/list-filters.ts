import type { SortKey } from './list/keyset.ts';
import { COMMON_SORT_KEYS } from './list/list-endpoint.ts';
import type { RangeBound } from './list/list-query.ts';
import type { SqlParams } from '../readmodel/sql-params.ts';

/** Sort keys every list has (`id`, `createdAt` of the row `r`), plus the endpoint's own. */
export function sortKeys(own: Record<string, SortKey>): Record<string, SortKey> {
  return { ...COMMON_SORT_KEYS, ...own };
}

/**
 * Conditions of `<field>From` / `<field>To` (docs/contract.md, "Filters"): inclusive bounds, a
 * plain date's upper bound covering its whole day. Dates compare as their UTC midnight.
 */
export function dateRangeConditions(
  query: Record<string, unknown>,
  params: SqlParams,
  columns: Record<string, { expression: string; type: 'timestamp' | 'date' }>,
): string[] {
  const conditions: string[] = [];
  for (const [field, column] of Object.entries(columns)) {
    const micros =
      column.type === 'timestamp'
        ? `epoch_us(${column.expression})`
        : `epoch_us(CAST(${column.expression} AS TIMESTAMP))`;
    const from = query[`${field}From`] as RangeBound | undefined;
    const to = query[`${field}To`] as RangeBound | undefined;
    if (from) conditions.push(`${micros} >= ${params.bind(from.epochMicros, 'BIGINT')}`);
    if (to)
      conditions.push(
        `${micros} ${to.exclusive ? '<' : '<='} ${params.bind(to.epochMicros, 'BIGINT')}`,
      );
  }
  return conditions;
}

/** An inclusive decimal range `<name>Min` / `<name>Max` over `expression`. */
export function moneyRangeConditions(
  query: Record<string, unknown>,
  params: SqlParams,
  ranges: Record<string, string>,
): string[] {
  const conditions: string[] = [];
  for (const [name, expression] of Object.entries(ranges)) {
    const min = query[`${name}Min`] as string | undefined;
    const max = query[`${name}Max`] as string | undefined;
    if (min !== undefined) conditions.push(`${expression} >= ${params.bind(min, 'DECIMAL(18,4)')}`);
    if (max !== undefined) conditions.push(`${expression} <= ${params.bind(max, 'DECIMAL(18,4)')}`);
  }
  return conditions;
}

/** A boolean filter: `condition` when true, its negation when false, nothing when absent. */
export function flag(value: boolean | undefined, condition: string): string[] {
  if (value === undefined) return [];
  return [value ? `(${condition})` : `NOT (${condition})`];
}

/**
 * Rows whose client's name contains `name` (case-insensitive), read from the client name the
 * read model keeps on project and invoice rows (src/search/client-names.ts) rather than by
 * joining the workspace's clients, which cost more than half of such a page.
 */
export function clientNameCondition(params: SqlParams, name: string): string {
  return `contains(r.client_name_lower, lower(${params.bind(name)}))`;
}
