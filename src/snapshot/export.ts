import { createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import type pg from 'pg';
import Cursor from 'pg-cursor';
import { currencyScale } from '../money/currencies.ts';
import { formatAmount, formatDecimal, Money } from '../money/money.ts';
import { BufferedTextWriter, endStream } from './buffered-text-writer.ts';
import { SNAPSHOT_VERSION, type Collection, type RecordType } from './records.ts';
import { TABLES, type ColumnSpec, type TableName } from './tables.ts';

interface Nested {
  field: string;
  table: TableName;
  where: string;
  order: string;
  /** Extra SQL for a nested row's `_currency` when it is not its parent's currency. */
  join?: string;
  currency?: string;
}

interface ExportPlan {
  type: RecordType;
  collection: Collection;
  table: TableName;
  /** Joins that give `_currency` (alias t is the table, w the workspace). */
  join?: string;
  currency?: string;
  nested?: Nested[];
  /** Extra fields computed in SQL, by field name. */
  extra?: Record<string, string>;
}

const PLANS: ExportPlan[] = [
  { type: 'user', collection: 'users', table: 'users' },
  { type: 'member', collection: 'members', table: 'members' },
  {
    type: 'client',
    collection: 'clients',
    table: 'clients',
    currency: 'coalesce(t.currency, w.base_currency)',
  },
  {
    type: 'project',
    collection: 'projects',
    table: 'projects',
    join: 'LEFT JOIN clients c ON c.id = t.client_id',
    currency: 'coalesce(c.currency, w.base_currency)',
    extra: {
      memberIds:
        'ARRAY(SELECT m.user_id FROM project_members m WHERE m.project_id = t.id ORDER BY m.user_id)',
    },
  },
  { type: 'task', collection: 'tasks', table: 'tasks' },
  { type: 'timeEntry', collection: 'timeEntries', table: 'time_entries' },
  { type: 'expense', collection: 'expenses', table: 'expenses' },
  {
    type: 'invoice',
    collection: 'invoices',
    table: 'invoices',
    nested: [
      { field: 'lines', table: 'invoice_lines', where: 'n.invoice_id = t.id', order: 'n.position' },
    ],
  },
  {
    type: 'payee',
    collection: 'payees',
    table: 'payees',
    nested: [
      {
        field: 'rates',
        table: 'payee_rates',
        where: 'n.payee_id = t.id',
        order: 'n.effective_from, n.id',
      },
      {
        field: 'credits',
        table: 'payee_credits',
        where: 'n.payee_id = t.id',
        order: 'n.created_at, n.id',
      },
    ],
  },
  {
    type: 'bill',
    collection: 'bills',
    table: 'team_bills',
    nested: [
      { field: 'lines', table: 'team_bill_lines', where: 'n.bill_id = t.id', order: 'n.position' },
    ],
  },
  {
    type: 'payment',
    collection: 'payments',
    table: 'team_payments',
    nested: [
      {
        field: 'allocations',
        table: 'team_payment_allocations',
        where: 'n.payment_id = t.id',
        order: 'n.position',
        join: 'JOIN team_bills b ON b.id = n.bill_id',
        currency: 'b.currency',
      },
    ],
  },
  { type: 'fxRate', collection: 'fxRates', table: 'fx_rates' },
];

type Row = Record<string, unknown>;

export interface ExportResult {
  records: number;
}

/**
 * Writes one workspace as a snapshot: NDJSON when the file name ends in `.ndjson`, else a
 * JSON document. Rows stream through cursors and are written as they come, so a workspace
 * of any size exports with flat memory. The file appears under its name only when complete.
 */
export async function exportSnapshot(
  pool: pg.Pool,
  workspaceId: string,
  file: string,
): Promise<ExportResult> {
  const ndjson = /\.(ndjson|jsonl)$/i.test(file);
  const client = await pool.connect();
  const partial = `${file}.partial`;
  const out = createWriteStream(partial);
  let records = 0;
  try {
    // One snapshot of the store for the whole export.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const workspace = await client.query<Row>('SELECT * FROM workspaces WHERE id = $1', [
      workspaceId,
    ]);
    const ws = workspace.rows[0];
    if (!ws) throw new Error(`Workspace ${workspaceId} does not exist`);
    const head = {
      id: ws.id,
      name: ws.name,
      plan: ws.plan,
      baseCurrency: ws.base_currency,
      timezone: ws.timezone,
      createdAt: timestamp(ws.created_at),
      updatedAt: timestamp(ws.updated_at),
    };
    const writer = new BufferedTextWriter(out);
    if (ndjson)
      await writer.write(
        `${JSON.stringify({ type: 'workspace', version: SNAPSHOT_VERSION, ...head })}\n`,
      );
    else await writer.write(`{"version":${SNAPSHOT_VERSION},\n"workspace":${JSON.stringify(head)}`);

    type Source = [Collection, RecordType, () => AsyncGenerator<Row>];
    const fromPlan = (p: ExportPlan): Source => [
      p.collection,
      p.type,
      () => streamPlan(client, p, workspaceId),
    ];
    const sources: Source[] = [
      ...PLANS.slice(0, 2).map(fromPlan),
      ['tokens', 'token', () => streamTokens(client, workspaceId)],
      ...PLANS.slice(2).map(fromPlan),
    ];
    for (const [collection, type, stream] of sources) {
      if (!ndjson) await writer.write(`,\n"${collection}":[`);
      let first = true;
      for await (const record of stream()) {
        records++;
        if (ndjson) await writer.write(`${JSON.stringify({ type, ...record })}\n`);
        else await writer.write(`${first ? '\n' : ',\n'}${JSON.stringify(record)}`);
        first = false;
      }
      if (!ndjson) await writer.write(first ? ']' : '\n]');
    }
    if (!ndjson) await writer.write('}\n');
    await client.query('COMMIT');
    await writer.close();
    await endStream(out);
    await rename(partial, file);
    return { records };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    out.destroy();
    throw error;
  } finally {
    client.release();
  }
}

async function* streamPlan(
  client: pg.PoolClient,
  plan: ExportPlan,
  workspaceId: string,
): AsyncGenerator<Row> {
  const spec = TABLES[plan.table].columns;
  const select = [
    ...exported(spec).map((c) => `t.${c.column}`),
    `${plan.currency ?? 'NULL'} AS _currency`,
    ...Object.entries(plan.extra ?? {}).map(([field, sql]) => `${sql} AS "${field}"`),
    ...(plan.nested ?? []).map((n) => `${nestedJson(n)} AS "${n.field}"`),
  ];
  const sql = `SELECT ${select.join(', ')} FROM ${plan.table} t JOIN workspaces w ON w.id = t.workspace_id ${plan.join ?? ''}
               WHERE t.workspace_id = $1 ORDER BY ${spec.some((c) => c.column === 'id') ? 't.id' : exported(spec)[0]!.column}`;
  for await (const row of cursorRows(client, sql, [workspaceId])) {
    const record = recordOf(spec, row, row._currency as string | null);
    for (const field of Object.keys(plan.extra ?? {})) record[field] = row[field];
    for (const n of plan.nested ?? []) {
      const nestedSpec = TABLES[n.table].columns;
      record[n.field] = (row[n.field] as Row[]).map((r) =>
        recordOf(
          nestedSpec,
          r,
          (r._currency as string | null) ??
            (row.currency as string | null) ??
            (row._currency as string | null),
        ),
      );
    }
    yield record;
  }
}

/** The nested rows of a record as one JSON array, numbers as text so no digit is lost. */
function nestedJson(n: Nested): string {
  const fields = exported(TABLES[n.table].columns).map((c) => {
    const value = ['money', 'rate', 'decimal'].includes(c.kind)
      ? `n.${c.column}::text`
      : `n.${c.column}`;
    return `'${c.column}', ${value}`;
  });
  if (n.currency) fields.push(`'_currency', ${n.currency}`);
  return `(SELECT coalesce(json_agg(json_build_object(${fields.join(', ')}) ORDER BY ${n.order}), '[]'::json)
           FROM ${n.table} n ${n.join ?? ''} WHERE ${n.where})`;
}

async function* streamTokens(client: pg.PoolClient, workspaceId: string): AsyncGenerator<Row> {
  const sql = `SELECT prefix, env, encode(secret_sha256, 'hex') AS sha, user_id, scopes, created_at, last_used_at, revoked_at
               FROM api_tokens WHERE workspace_id = $1 ORDER BY prefix`;
  for await (const row of cursorRows(client, sql, [workspaceId])) {
    yield {
      prefix: row.prefix,
      env: row.env,
      secretSha256: row.sha,
      userId: row.user_id,
      scopes: row.scopes,
      createdAt: timestamp(row.created_at),
      lastUsedAt: timestamp(row.last_used_at),
      revokedAt: timestamp(row.revoked_at),
    };
  }
}

async function* cursorRows(
  client: pg.PoolClient,
  sql: string,
  params: unknown[],
): AsyncGenerator<Row> {
  const cursor = client.query(new Cursor<Row>(sql, params));
  try {
    for (;;) {
      const rows = await cursor.read(2000);
      if (rows.length === 0) return;
      yield* rows;
    }
  } finally {
    await cursor.close();
  }
}

const exported = (spec: readonly ColumnSpec[]) => spec.filter((c) => c.field !== undefined);

function recordOf(spec: readonly ColumnSpec[], row: Row, fallbackCurrency: string | null): Row {
  const record: Row = {};
  for (const c of exported(spec)) {
    const currency =
      c.currency === undefined
        ? null
        : ((c.currency === '_currency' ? null : (row[c.currency] as string | null)) ??
          fallbackCurrency);
    record[c.field!] = decode(c, row[c.column], currency);
  }
  return record;
}

function decode(column: ColumnSpec, value: unknown, currency: string | null): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'timestamp':
      return timestamp(value);
    case 'money':
      return formatAmount(numericText(value), currency ?? 'EUR');
    case 'rate': {
      // A rate keeps its own decimals (up to four) but shows at least the currency's.
      const text = numericText(value);
      const significant = new Money(text).decimalPlaces();
      return formatDecimal(text, Math.max(significant, currencyScale(currency ?? 'EUR') ?? 2));
    }
    case 'decimal':
      return new Money(numericText(value)).toFixed();
    case 'uuid':
    case 'text':
    case 'date':
    case 'int':
    case 'bool':
    case 'uuid[]':
    case 'text[]':
    case 'json':
      return value;
  }
}

function timestamp(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return new Date(value).toISOString();
  throw new Error(`Unexpected timestamp value ${typeof value}`);
}

/** NUMERIC arrives as text (pg) or JSON text; anything else is a bug, never a silent "[object Object]". */
function numericText(value: unknown): string {
  if (typeof value === 'string') return value;
  throw new Error(`Unexpected numeric value of type ${typeof value}`);
}
