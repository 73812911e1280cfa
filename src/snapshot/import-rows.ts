import { hashSecret, parseToken } from '../tokens/token-format.ts';
import type { BinaryCopyRows, RowSink } from './copy-binary.ts';
import type { RecordOf, RecordType } from './records.ts';
import {
  INSERT_ORDER,
  TABLES,
  type ColumnKind,
  type ColumnSpec,
  type TableName,
} from './tables.ts';

export const TOKENS = 'api_tokens';

/** Columns of each staged table, in the order rows are written. */
export const STAGED_COLUMNS = new Map<string, readonly string[]>([
  ...INSERT_ORDER.map((t) => [t, TABLES[t].columns.map((c) => c.column)] as const),
  [
    TOKENS,
    [
      'prefix',
      'workspace_id',
      'user_id',
      'env',
      'secret_sha256',
      'scopes',
      'created_at',
      'last_used_at',
      'revoked_at',
    ],
  ],
]);

/** Values the importer gives columns that have no field in the record (keys, positions). */
type Fill = Record<string, string | number>;

const TABLE_OF_TYPE = {
  user: 'users',
  member: 'members',
  client: 'clients',
  task: 'tasks',
  timeEntry: 'time_entries',
  expense: 'expenses',
  fxRate: 'fx_rates',
} as const;

/**
 * Writes one checked record as rows of its table, in binary COPY format, and its nested
 * records (lines, rates, credits, allocations) as rows of theirs. The columns of each table
 * come from its spec in tables.ts, the one list import and export share.
 */
export function stageRecord(
  staging: RowSink,
  type: RecordType,
  record: unknown,
  workspaceId: string,
  now: string,
  reject: (message: string, field: string) => void,
): void {
  const ws: Fill = { workspace_id: workspaceId };
  switch (type) {
    case 'user':
    case 'member':
    case 'client':
    case 'task':
    case 'timeEntry':
    case 'expense':
    case 'fxRate':
      return put(staging, TABLE_OF_TYPE[type], record as object, ws, now);
    case 'token': {
      const token = record as RecordOf<'token'>;
      let prefix: string, env: string, sha256: string;
      if ('token' in token) {
        const parsed = parseToken(token.token);
        if (!parsed) return reject('must look like tt_<live|test>_<prefix12>_<secret32>', 'token');
        ({ prefix, env } = parsed);
        sha256 = hashSecret(parsed.secret).toString('hex');
      } else {
        ({ prefix, env } = token);
        sha256 = token.secretSha256;
      }
      const rows = staging.rowsOf(TOKENS);
      rows.beginRow(9);
      rows.text(prefix);
      rows.uuid(workspaceId);
      rows.uuid(token.userId);
      rows.text(env);
      rows.byteaHex(sha256);
      rows.textArray(token.scopes);
      rows.timestamptz(token.createdAt ?? now);
      for (const at of [token.lastUsedAt, token.revokedAt]) {
        if (at === null) rows.null();
        else rows.timestamptz(at);
      }
      return;
    }
    case 'project': {
      const project = record as RecordOf<'project'>;
      put(staging, 'projects', project, ws, now);
      const fill = { ...ws, project_id: project.id };
      for (const userId of project.memberIds)
        put(staging, 'project_members', { userId }, fill, now);
      return;
    }
    case 'invoice': {
      const invoice = record as RecordOf<'invoice'>;
      put(staging, 'invoices', invoice, ws, now);
      const fill: Fill = { ...ws, invoice_id: invoice.id };
      return putInOrder(staging, 'invoice_lines', invoice.lines, fill, now);
    }
    case 'payee': {
      const payee = record as RecordOf<'payee'>;
      put(staging, 'payees', payee, ws, now);
      const fill = { ...ws, payee_id: payee.id };
      for (const rate of payee.rates) put(staging, 'payee_rates', rate, fill, now);
      for (const credit of payee.credits) put(staging, 'payee_credits', credit, fill, now);
      return;
    }
    case 'bill': {
      const bill = record as RecordOf<'bill'>;
      put(staging, 'team_bills', bill, ws, now);
      const fill: Fill = { ...ws, bill_id: bill.id };
      return putInOrder(staging, 'team_bill_lines', bill.lines, fill, now);
    }
    case 'payment': {
      const payment = record as RecordOf<'payment'>;
      put(staging, 'team_payments', payment, ws, now);
      const fill: Fill = { ...ws, payment_id: payment.id };
      return putInOrder(staging, 'team_payment_allocations', payment.allocations, fill, now);
    }
  }
}

function put(staging: RowSink, table: TableName, values: object, fill: Fill, now: string): void {
  writeRow(staging.rowsOf(table), TABLES[table].columns, values as Fields, fill, now);
}

/**
 * A record's nested rows (its lines, its allocations) with the columns of `fill`, which it
 * takes to set `position`, each row's index.
 */
function putInOrder(
  staging: RowSink,
  table: TableName,
  rows: readonly object[],
  fill: Fill,
  now: string,
): void {
  rows.forEach((row, i) => {
    fill.position = i;
    put(staging, table, row, fill, now);
  });
}

type Fields = Record<string, unknown>;

/** One row in the column order of its table spec; a missing createdAt is the import time. */
function writeRow(
  rows: BinaryCopyRows,
  columns: readonly ColumnSpec[],
  record: Fields,
  fill: Fill,
  now: string,
): void {
  rows.beginRow(columns.length);
  for (const column of columns) {
    let value = column.field === undefined ? fill[column.column] : record[column.field];
    if (value === undefined || value === null) {
      if (column.column === 'created_at') value = now;
      else if (column.column === 'updated_at') value = record.createdAt ?? now;
      else {
        rows.null();
        continue;
      }
    }
    writeValue(rows, column.kind, value);
  }
}

function writeValue(rows: BinaryCopyRows, kind: ColumnKind, value: unknown): void {
  switch (kind) {
    case 'uuid':
      return rows.uuid(value as string);
    case 'text':
      return rows.text(value as string);
    case 'int':
      return rows.int4(value as number);
    case 'bool':
      return rows.bool(value as boolean);
    case 'date':
      return rows.date(value as string);
    case 'timestamp':
      return rows.timestamptz(value as string);
    case 'money':
    case 'rate':
    case 'decimal':
      return rows.numeric(value as string);
    case 'uuid[]':
      return rows.uuidArray(value as string[]);
    case 'text[]':
      return rows.textArray(value as string[]);
    case 'json':
      return rows.jsonb(value);
  }
}
