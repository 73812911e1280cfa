import type pg from 'pg';
import type { z } from 'zod';
import { allCurrencyScales } from '../money/currencies.ts';
import { deleteWorkspace } from '../store/delete-workspace.ts';
import { hashSecret, parseToken } from '../tokens/token-format.ts';
import { arrayLiteral } from './copy-text.ts';
import { IMPORT_CHECKS } from './import-checks.ts';
import type { SnapshotLine } from './read-snapshot.ts';
import {
  RECORD_TYPES,
  SNAPSHOT_VERSION,
  workspaceRecord,
  type RecordOf,
  type RecordType,
  type WorkspaceRecord,
} from './records.ts';
import { Spools } from './spool.ts';
import { INSERT_ORDER, TABLES, type ColumnSpec, type TableName } from './tables.ts';

/** One problem found in a snapshot: which record, which field, what is wrong. */
export interface ImportIssue {
  entity: string;
  id: string | null;
  field: string;
  message: string;
  /** Line of an NDJSON file. */
  line?: number;
}

export class SnapshotImportError extends Error {
  constructor(
    readonly issues: ImportIssue[],
    readonly total: number,
  ) {
    super(`The snapshot has ${total} error${total === 1 ? '' : 's'}; nothing was written`);
  }
}

export interface ImportOptions {
  /** Replace a workspace that already exists (otherwise importing it is refused). */
  replace?: boolean;
  /** Called every so often with the number of records read. */
  onProgress?: (records: number) => void;
  /** Folder for the per-table spool files (default: the OS temp folder). */
  spoolDir?: string;
}

export interface ImportResult {
  workspaceId: string;
  replaced: boolean;
  /** Rows written per table. */
  rows: Record<string, number>;
}

const MAX_ISSUES = 1000;
const TOKENS = 'api_tokens';
const TOKEN_COLUMNS = [
  'prefix',
  'workspace_id',
  'user_id',
  'env',
  'secret_sha256',
  'scopes',
  'created_at',
  'last_used_at',
  'revoked_at',
];

/**
 * Imports one workspace snapshot. Every record is validated on its own while the file
 * streams into per-table spool files; then, inside one transaction, the rows are COPYed
 * into temporary staging tables and the rules that span records (references, duplicates,
 * amounts in another record's currency) are checked with SQL over the whole set. Only a
 * snapshot without a single error reaches the real tables: a bad file writes nothing.
 */
export async function importSnapshot(
  pool: pg.Pool,
  lines: AsyncIterable<SnapshotLine>,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const issues = new IssueList();
  const spools = await Spools.create(options.spoolDir);
  try {
    const workspace = await spoolRecords(lines, spools, issues, options.onProgress);
    await spools.closeAll();
    if (!workspace || issues.total > 0) throw issues.toError();
    return await load(pool, workspace, spools, issues, options.replace === true);
  } finally {
    await spools.remove();
  }
}

async function spoolRecords(
  lines: AsyncIterable<SnapshotLine>,
  spools: Spools,
  issues: IssueList,
  onProgress: ImportOptions['onProgress'],
): Promise<WorkspaceRecord | undefined> {
  const now = new Date().toISOString();
  let workspace: WorkspaceRecord | undefined;
  let count = 0;
  for await (const item of lines) {
    if (++count % 100_000 === 0) onProgress?.(count);
    if (item.kind === 'malformed') {
      issues.add({
        entity: 'snapshot',
        id: null,
        field: '',
        message: item.message,
        line: item.line,
      });
      continue;
    }
    const id = typeof item.data.id === 'string' ? item.data.id : null;
    if (item.type === 'workspace') {
      if (workspace || count > 1) {
        issues.add({
          entity: 'workspace',
          id,
          field: 'type',
          message: 'must be the first record, and the only workspace',
          line: item.line,
        });
        continue;
      }
      const { version, ...fields } = item.data;
      if (version !== SNAPSHOT_VERSION) {
        issues.add({
          entity: 'snapshot',
          id: null,
          field: 'version',
          message: `must be ${SNAPSHOT_VERSION}`,
          line: item.line,
        });
      }
      const parsed = workspaceRecord.strict().safeParse(fields);
      if (parsed.success) workspace = parsed.data;
      else issues.addZod('workspace', id, parsed.error, item.line);
      continue;
    }
    if (count === 1) {
      issues.add({
        entity: 'snapshot',
        id: null,
        field: 'type',
        message: 'the first record must be the workspace',
        line: item.line,
      });
    }
    if (!(item.type in RECORD_TYPES)) {
      issues.add({
        entity: item.type,
        id,
        field: 'type',
        message: 'is not a known record type',
        line: item.line,
      });
      continue;
    }
    const type = item.type as RecordType;
    const parsed = (RECORD_TYPES[type].schema as z.ZodType).safeParse(item.data);
    if (!parsed.success) {
      issues.addZod(type, id, parsed.error, item.line);
      continue;
    }
    if (issues.total > 0 || !workspace) continue;
    await spoolRecord(spools, type, parsed.data, workspace.id, now, (message, field) =>
      issues.add({ entity: type, id, field, message, line: item.line }),
    );
  }
  if (!workspace && issues.total === 0) {
    issues.add({
      entity: 'snapshot',
      id: null,
      field: 'workspace',
      message: 'the snapshot has no workspace record',
    });
  }
  onProgress?.(count);
  return workspace;
}

type Fill = Record<string, string | null>;

/** Turns one validated record into rows of its table and of the tables of its nested records. */
async function spoolRecord(
  spools: Spools,
  type: RecordType,
  record: unknown,
  workspaceId: string,
  now: string,
  reject: (message: string, field: string) => void,
): Promise<void> {
  const ws = { workspace_id: workspaceId };
  const put = (table: TableName, values: Record<string, unknown>, fill: Fill = {}) =>
    spools.add(table, rowOf(TABLES[table].columns, values, { ...ws, ...fill }, now));
  switch (type) {
    case 'user':
    case 'member':
    case 'client':
    case 'task':
    case 'timeEntry':
    case 'expense':
    case 'fxRate': {
      const table = (
        {
          user: 'users',
          member: 'members',
          client: 'clients',
          task: 'tasks',
          timeEntry: 'time_entries',
          expense: 'expenses',
          fxRate: 'fx_rates',
        } as const
      )[type];
      await put(table, record as Record<string, unknown>);
      return;
    }
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
      const created = token.createdAt ?? now;
      await spools.add(TOKENS, [
        prefix,
        workspaceId,
        token.userId,
        env,
        `\\x${sha256}`,
        arrayLiteral(token.scopes),
        created,
        token.lastUsedAt,
        token.revokedAt,
      ]);
      return;
    }
    case 'project': {
      const project = record as RecordOf<'project'>;
      await put('projects', project);
      for (const userId of project.memberIds)
        await put('project_members', { userId }, { project_id: project.id });
      return;
    }
    case 'invoice': {
      const invoice = record as RecordOf<'invoice'>;
      await put('invoices', invoice);
      for (const [i, line] of invoice.lines.entries())
        await put('invoice_lines', line, { invoice_id: invoice.id, position: String(i) });
      return;
    }
    case 'payee': {
      const payee = record as RecordOf<'payee'>;
      await put('payees', payee);
      for (const rate of payee.rates) await put('payee_rates', rate, { payee_id: payee.id });
      for (const credit of payee.credits)
        await put('payee_credits', credit, { payee_id: payee.id });
      return;
    }
    case 'bill': {
      const bill = record as RecordOf<'bill'>;
      await put('team_bills', bill);
      for (const [i, line] of bill.lines.entries())
        await put('team_bill_lines', line, { bill_id: bill.id, position: String(i) });
      return;
    }
    case 'payment': {
      const payment = record as RecordOf<'payment'>;
      await put('team_payments', payment);
      for (const [i, allocation] of payment.allocations.entries()) {
        await put('team_payment_allocations', allocation, {
          payment_id: payment.id,
          position: String(i),
        });
      }
      return;
    }
  }
}

/** COPY values of a record, in the column order of its table spec. */
function rowOf(
  columns: readonly ColumnSpec[],
  record: Record<string, unknown>,
  fill: Fill,
  now: string,
): (string | null)[] {
  return columns.map((c) => {
    if (c.column in fill) return fill[c.column] ?? null;
    const value = c.field === undefined ? undefined : record[c.field];
    if (value === undefined || value === null) {
      if (c.column === 'created_at') return now;
      if (c.column === 'updated_at')
        return typeof record.createdAt === 'string' ? record.createdAt : now;
      return null;
    }
    return encode(c, value);
  });
}

function encode(column: ColumnSpec, value: unknown): string {
  switch (column.kind) {
    case 'bool':
      return value === true ? 't' : 'f';
    case 'int':
      return String(value);
    case 'uuid[]':
    case 'text[]':
      return arrayLiteral(value as string[]);
    case 'json':
      return JSON.stringify(value);
    case 'uuid':
    case 'text':
    case 'date':
    case 'timestamp':
    case 'money':
    case 'rate':
    case 'decimal':
      return value as string;
  }
}

async function load(
  pool: pg.Pool,
  workspace: WorkspaceRecord,
  spools: Spools,
  issues: IssueList,
  replace: boolean,
): Promise<ImportResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const existing = await client.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [
      workspace.id,
    ]);
    const exists = existing.rowCount === 1;
    if (exists && !replace) {
      issues.add({
        entity: 'workspace',
        id: workspace.id,
        field: 'id',
        message: 'already exists; import with --replace to replace it',
      });
      throw issues.toError();
    }
    await stage(client, spools, workspace);
    await check(client, workspace, issues);
    if (issues.total > 0) throw issues.toError();

    if (exists) await deleteWorkspace(client, workspace.id);
    await client.query(
      `INSERT INTO workspaces (id, name, plan, base_currency, timezone, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()), coalesce($7::timestamptz, $6::timestamptz, now()))`,
      [
        workspace.id,
        workspace.name,
        workspace.plan,
        workspace.baseCurrency,
        workspace.timezone,
        workspace.createdAt ?? null,
        workspace.updatedAt ?? null,
      ],
    );
    await skipForeignKeyTriggers(client);
    const rows: Record<string, number> = {};
    for (const table of [...INSERT_ORDER.slice(0, 2), TOKENS, ...INSERT_ORDER.slice(2)]) {
      if (spools.rows(table) === 0) continue;
      const result = await client.query(`INSERT INTO ${table} SELECT * FROM stage_${table}`);
      rows[table] = result.rowCount ?? 0;
    }
    await client.query('COMMIT');
    return { workspaceId: workspace.id, replaced: exists, rows };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The staged rows were checked against every foreign key of the schema (import-checks.ts:
 * each reference resolves inside the snapshot, and every row gets the snapshot's workspace
 * id), so the per-row FK triggers would only repeat that work, and they make a bulk insert
 * several times slower. Turning them off needs superuser (the embedded store is); elsewhere
 * the triggers stay on and only speed is lost. Unique and CHECK constraints always apply.
 */
async function skipForeignKeyTriggers(client: pg.PoolClient): Promise<void> {
  await client.query('SAVEPOINT fk_triggers');
  try {
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query('RELEASE SAVEPOINT fk_triggers');
  } catch {
    await client.query('ROLLBACK TO SAVEPOINT fk_triggers');
  }
}

/** Staging tables shaped like the real ones (no keys, no references), dropped at commit. */
async function stage(
  client: pg.PoolClient,
  spools: Spools,
  workspace: WorkspaceRecord,
): Promise<void> {
  await client.query(
    'CREATE TEMP TABLE stage_workspace (id uuid, base_currency text) ON COMMIT DROP',
  );
  await client.query('INSERT INTO stage_workspace VALUES ($1, $2)', [
    workspace.id,
    workspace.baseCurrency,
  ]);
  for (const table of [...INSERT_ORDER, TOKENS]) {
    await client.query(
      `CREATE TEMP TABLE stage_${table} (LIKE ${table} INCLUDING DEFAULTS) ON COMMIT DROP`,
    );
    const columns =
      table === TOKENS ? TOKEN_COLUMNS : TABLES[table as TableName].columns.map((c) => c.column);
    await spools.copyInto(client, table, `stage_${table}`, columns);
    await client.query(`ANALYZE stage_${table}`);
  }
  await client.query(
    'CREATE TEMP TABLE stage_currency_scales (code text PRIMARY KEY, scale int NOT NULL) ON COMMIT DROP',
  );
  const scales = allCurrencyScales();
  await client.query(
    'INSERT INTO stage_currency_scales SELECT * FROM unnest($1::text[], $2::int[])',
    [scales.map(([code]) => code), scales.map(([, scale]) => scale)],
  );
}

async function check(
  client: pg.PoolClient,
  workspace: WorkspaceRecord,
  issues: IssueList,
): Promise<void> {
  for (const rule of IMPORT_CHECKS) {
    const { rows } = await client.query<{ id: string | null }>(
      `${rule.sql} LIMIT ${MAX_ISSUES}`,
      rule.sql.includes('$1') ? [workspace.id] : [],
    );
    for (const row of rows)
      issues.add({ entity: rule.entity, id: row.id, field: rule.field, message: rule.message });
    if (issues.total >= MAX_ISSUES) return;
  }
}

class IssueList {
  readonly items: ImportIssue[] = [];
  total = 0;

  add(issue: ImportIssue): void {
    this.total++;
    if (this.items.length < MAX_ISSUES)
      this.items.push(issue.line === undefined ? withoutLine(issue) : issue);
  }

  addZod(entity: string, id: string | null, error: z.ZodError, line?: number): void {
    for (const issue of error.issues) {
      this.add({ entity, id, field: issue.path.join('.'), message: issue.message, line });
    }
  }

  toError(): SnapshotImportError {
    return new SnapshotImportError(this.items, this.total);
  }
}

function withoutLine(issue: ImportIssue): ImportIssue {
  const rest = { ...issue };
  delete rest.line;
  return rest;
}
