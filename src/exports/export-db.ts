import type { Kysely } from 'kysely';
import { readModelQueries } from '../readmodel/query-builder.ts';

/**
 * The read-model columns the exports' statements name outside their column lists (FROM,
 * WHERE, ORDER BY, the journal), with DuckDB's type of each; `?` marks a column that may be
 * NULL. It is declared as data so that a test can hold it against the read model's own
 * catalog (test/exports/export-db.test.ts): the TypeScript types below are only as true as that.
 */
export const EXPORT_TABLES = {
  workspaces: { id: 'UUID', base_currency: 'VARCHAR' },
  invoices: {
    id: 'UUID',
    workspace_id: 'UUID',
    number: 'VARCHAR',
    issue_date: 'DATE?',
    deleted_at: 'TIMESTAMP WITH TIME ZONE?',
  },
  time_entries: {
    id: 'UUID',
    workspace_id: 'UUID',
    entry_date: 'DATE',
    deleted_at: 'TIMESTAMP WITH TIME ZONE?',
  },
  payees: { id: 'UUID' },
  team_bills: {
    id: 'UUID',
    workspace_id: 'UUID',
    payee_id: 'UUID',
    number: 'VARCHAR',
    status: 'VARCHAR',
    service_from: 'DATE?',
    service_to: 'DATE?',
    deleted_at: 'TIMESTAMP WITH TIME ZONE?',
  },
  team_bill_figures: { bill_id: 'UUID' },
  team_bill_lines: { id: 'UUID', workspace_id: 'UUID', bill_id: 'UUID', position: 'INTEGER' },
  team_payments: {
    id: 'UUID',
    workspace_id: 'UUID',
    payee_id: 'UUID',
    paid_date: 'DATE',
    deleted_at: 'TIMESTAMP WITH TIME ZONE?',
  },
  team_payment_allocations: {
    workspace_id: 'UUID',
    payment_id: 'UUID',
    bill_id: 'UUID',
    position: 'INTEGER',
  },
  /** A view (src/reports/team-payouts/sql/views/unpaid_time_items.sql). */
  unpaid_time_items: { id: 'UUID?', workspace_id: 'UUID?', work_date: 'DATE?' },
  export_journal: { table_name: 'VARCHAR', key: 'VARCHAR', change_no: 'BIGINT' },
} as const satisfies Record<string, Record<string, string>>;

/** What a value of a DuckDB type is bound as: dates and ids as their ISO text. */
type Bound<T extends string> = T extends `${infer Type}?`
  ? Bound<Type> | null
  : T extends 'INTEGER' | 'BIGINT'
    ? number
    : T extends 'BOOLEAN'
      ? boolean
      : string;

type Tables = typeof EXPORT_TABLES;

/** The read model as the exports' statements see it (EXPORT_TABLES). */
export type ExportDb = {
  -readonly [T in keyof Tables]: {
    -readonly [C in keyof Tables[T]]: Tables[T][C] extends string ? Bound<Tables[T][C]> : never;
  };
};

/** The builder the export statements are written with; it compiles, the caller runs. */
export const exportQueries: Kysely<ExportDb> = readModelQueries<ExportDb>();
