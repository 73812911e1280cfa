import type pg from 'pg';
import type { z } from 'zod';
import { allCurrencyScales } from '../money/currencies.ts';
import { deleteWorkspace } from '../store/delete-workspace.ts';
import { hashSecret, parseToken } from '../tokens/token-format.ts';
import type { BinaryCopyRows } from './copy-binary.ts';
import { IMPORT_CHECKS, UNIQUENESS_CHECKS, type ImportCheck } from './import-checks.ts';
import type { SnapshotLine } from './read-snapshot.ts';
import {
  RECORD_TYPES,
  SNAPSHOT_VERSION,
  workspaceRecord,
  type RecordOf,
  type RecordType,
  type WorkspaceRecord,
} from './records.ts';
import { plainRecord } from './plain-records.ts';
import { Staging } from './staging.ts';
import {
  INSERT_ORDER,
  TABLES,
  type ColumnKind,
  type ColumnSpec,
  type TableName,
} from './tables.ts';

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
}

export interface ImportResult {
  workspaceId: string;
  replaced: boolean;
  /** Rows written per table. */
  rows: Record<string, number>;
  /** Where the time went, in ms (docs/import.md). */
  phases: ImportPhases;
}

export interface ImportPhases {
  /** Reading, checking each record and COPYing it into staging, which overlap. */
  load: number;
  /** Of `load`: the reader waiting for PostgreSQL to take in a COPY. */
  loadWaitingForCopy: number;
  /** The rules across records (import-checks.ts). */
  checks: number;
  /** Deleting a replaced workspace, then INSERT from staging into the real tables. */
  insert: number;
  /** Building the indexes dropped for the insert. */
  indexes: number;
  commit: number;
}

const MAX_ISSUES = 1000;
const UNIQUE_VIOLATION = '23505';
const TOKENS = 'api_tokens';
/** Every table a snapshot fills, each after the tables it references. */
const LOAD_ORDER = [...INSERT_ORDER.slice(0, 2), TOKENS, ...INSERT_ORDER.slice(2)];
const STAGED_COLUMNS = new Map<string, readonly string[]>([
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
/**
 * Below this many rows a table keeps its indexes during the insert: dropping one takes the
 * table's exclusive lock, which a small import should never need.
 */
const REBUILD_INDEXES_FROM_ROWS = 10_000;

/**
 * Imports one workspace snapshot in one transaction, in three steps:
 * 1. Each record is checked on its own (records.ts; plain-records.ts is the fast path for
 *    the millions of time entries and lines) as the file streams, and its rows go by binary
 *    COPY into temporary staging tables at once (staging.ts).
 * 2. The rules that span records (references, duplicates, amounts in another record's
 *    currency) are checked with SQL over the staged set (import-checks.ts).
 * 3. Only a snapshot without a single error reaches the real tables, by INSERT from staging
 *    in key order; a large table's other indexes are dropped and built again after.
 * A bad file writes nothing: the transaction is rolled back.
 */
export async function importSnapshot(
  pool: pg.Pool,
  batches: AsyncIterable<SnapshotLine[]>,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const issues = new IssueList();
  const client = await pool.connect();
  const clock = new PhaseClock();
  try {
    await client.query('BEGIN');
    const loaded = await loadRecords(client, batches, issues, options);
    if (!loaded || issues.total > 0) throw issues.toError();
    const { workspace, staging, exists } = loaded;
    clock.end('load');

    for (const table of LOAD_ORDER)
      if (staging.rows(table) > 0) await client.query(`ANALYZE stage_${table}`);
    await check(client, workspace, issues, IMPORT_CHECKS);
    if (issues.total > 0) {
      await check(client, workspace, issues, UNIQUENESS_CHECKS);
      throw issues.toError();
    }
    clock.end('checks');

    await client.query('SAVEPOINT insert');
    const rows = await insert(client, workspace, staging, exists, clock).catch(
      async (error: unknown) => {
        if (!isUniqueViolation(error)) throw error;
        // A unique constraint tripped: name every offender (import-checks.ts).
        await client.query('ROLLBACK TO SAVEPOINT insert');
        await check(client, workspace, issues, UNIQUENESS_CHECKS);
        throw issues.total > 0 ? issues.toError() : error;
      },
    );
    await client.query('COMMIT');
    clock.end('commit');
    return {
      workspaceId: workspace.id,
      replaced: exists,
      rows,
      phases: { ...clock.phases, loadWaitingForCopy: staging.waitedMs },
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

interface Loaded {
  workspace: WorkspaceRecord;
  staging: Staging;
  exists: boolean;
}

async function loadRecords(
  client: pg.PoolClient,
  batches: AsyncIterable<SnapshotLine[]>,
  issues: IssueList,
  options: ImportOptions,
): Promise<Loaded | undefined> {
  const now = new Date().toISOString();
  let workspace: WorkspaceRecord | undefined;
  let target: { staging: Staging; exists: boolean } | undefined;
  let count = 0;
  for await (const batch of batches) {
    for (const item of batch) {
      if (++count % 100_000 === 0) options.onProgress?.(count);
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
        if (!parsed.success) {
          issues.addZod('workspace', id, parsed.error, item.line);
          continue;
        }
        workspace = parsed.data;
        if (issues.total === 0) target = await openTarget(client, workspace, options, issues);
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
      const parsed = parseRecord(type, item.data);
      if (!parsed.success) {
        issues.addZod(type, id, parsed.error, item.line);
        continue;
      }
      if (!target || issues.total > 0) continue;
      stageRecord(target.staging, type, parsed.data, workspace!.id, now, (message, field) =>
        issues.add({ entity: type, id, field, message, line: item.line }),
      );
      if (target.staging.full) await target.staging.send();
    }
  }
  if (!workspace && issues.total === 0) {
    issues.add({
      entity: 'snapshot',
      id: null,
      field: 'workspace',
      message: 'the snapshot has no workspace record',
    });
  }
  options.onProgress?.(count);
  if (!workspace || !target || issues.total > 0) return undefined;
  await target.staging.send(true);
  return { workspace, ...target };
}

/**
 * Locks the workspace's row (when it exists) for the transaction and creates the staging
 * tables; undefined, with the issue, when the workspace exists and may not be replaced.
 */
async function openTarget(
  client: pg.PoolClient,
  workspace: WorkspaceRecord,
  options: ImportOptions,
  issues: IssueList,
): Promise<{ staging: Staging; exists: boolean } | undefined> {
  const existing = await client.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [
    workspace.id,
  ]);
  const exists = existing.rowCount === 1;
  if (exists && options.replace !== true) {
    issues.add({
      entity: 'workspace',
      id: workspace.id,
      field: 'id',
      message: 'already exists; import with --replace to replace it',
    });
    return undefined;
  }
  await client.query(
    'CREATE TEMP TABLE stage_workspace (id uuid, base_currency text) ON COMMIT DROP',
  );
  await client.query('INSERT INTO stage_workspace VALUES ($1, $2)', [
    workspace.id,
    workspace.baseCurrency,
  ]);
  await client.query(
    'CREATE TEMP TABLE stage_currency_scales (code text PRIMARY KEY, scale int NOT NULL) ON COMMIT DROP',
  );
  const scales = allCurrencyScales();
  await client.query(
    'INSERT INTO stage_currency_scales SELECT * FROM unnest($1::text[], $2::int[])',
    [scales.map(([code]) => code), scales.map(([, scale]) => scale)],
  );
  return { staging: await Staging.create(client, STAGED_COLUMNS), exists };
}

/** A record checked by the fast path when it is in its plain form, by its schema otherwise. */
function parseRecord(
  type: RecordType,
  data: Record<string, unknown>,
): { success: true; data: unknown } | { success: false; error: z.ZodError } {
  const plain = plainRecord(type, data);
  if (plain !== undefined) return { success: true, data: plain };
  return (RECORD_TYPES[type].schema as z.ZodType).safeParse(data);
}

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

/** Writes one checked record as rows of its table and of the tables of its nested records. */
function stageRecord(
  staging: Staging,
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
      const fill: Fill = { ...ws, invoice_id: invoice.id, position: 0 };
      invoice.lines.forEach((line, i) => {
        fill.position = i;
        put(staging, 'invoice_lines', line, fill, now);
      });
      return;
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
      const fill: Fill = { ...ws, bill_id: bill.id, position: 0 };
      bill.lines.forEach((line, i) => {
        fill.position = i;
        put(staging, 'team_bill_lines', line, fill, now);
      });
      return;
    }
    case 'payment': {
      const payment = record as RecordOf<'payment'>;
      put(staging, 'team_payments', payment, ws, now);
      const fill: Fill = { ...ws, payment_id: payment.id, position: 0 };
      payment.allocations.forEach((allocation, i) => {
        fill.position = i;
        put(staging, 'team_payment_allocations', allocation, fill, now);
      });
      return;
    }
  }
}

function put(staging: Staging, table: TableName, values: object, fill: Fill, now: string): void {
  writeRow(staging.rowsOf(table), TABLES[table].columns, values as Fields, fill, now);
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

async function insert(
  client: pg.PoolClient,
  workspace: WorkspaceRecord,
  staging: Staging,
  exists: boolean,
  clock: PhaseClock,
): Promise<Record<string, number>> {
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
  // Sorting for the inserts and building indexes go faster with room to work in memory.
  await client.query(`SET LOCAL work_mem = '256MB'`);
  await client.query(`SET LOCAL maintenance_work_mem = '512MB'`);
  const rows: Record<string, number> = {};
  for (const table of LOAD_ORDER) {
    const staged = staging.rows(table);
    if (staged === 0) continue;
    const dropped = await dropIndexesForLargeLoad(client, table, staged);
    // In key order, the primary key and the (workspace_id, id) key grow at one end.
    const order = TABLES[table as TableName]?.columns.some((c) => c.column === 'id')
      ? ' ORDER BY id'
      : '';
    const result = await client.query(`INSERT INTO ${table} SELECT * FROM stage_${table}${order}`);
    rows[table] = result.rowCount ?? 0;
    clock.end('insert');
    for (const definition of dropped) await client.query(definition);
    clock.end('indexes');
  }
  return rows;
}

/**
 * Inserting millions of rows into a table's indexes in random order costs several times
 * building them afresh (docs/import.md). When a load brings more rows to a table than it
 * holds, the table's indexes that back no constraint are dropped before the insert, and
 * their definitions returned to build them again after. Constraint indexes (keys, unique)
 * stay: references depend on them, and key order makes their inserts cheap.
 */
async function dropIndexesForLargeLoad(
  client: pg.PoolClient,
  table: string,
  rows: number,
): Promise<string[]> {
  if (rows < REBUILD_INDEXES_FROM_ROWS) return [];
  const { rows: held } = await client.query<{ n: number }>(
    'SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = $1::regclass',
    [table],
  );
  if (rows <= (held[0]?.n ?? 0)) return [];
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i
     WHERE i.indrelid = $1::regclass
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [table],
  );
  for (const { name } of indexes) await client.query(`DROP INDEX ${name}`);
  return indexes.map((i) => i.definition);
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

async function check(
  client: pg.PoolClient,
  workspace: WorkspaceRecord,
  issues: IssueList,
  rules: readonly ImportCheck[],
): Promise<void> {
  for (const rule of rules) {
    const { rows } = await client.query<{ id: string | null; message?: string | null }>(
      `${rule.sql} LIMIT ${MAX_ISSUES}`,
      rule.sql.includes('$1') ? [workspace.id] : [],
    );
    for (const row of rows) {
      const message = row.message ?? rule.message;
      issues.add({ entity: rule.entity, id: row.id, field: rule.field, message });
    }
    if (issues.total >= MAX_ISSUES) return;
  }
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;
}

/** Wall time per phase: each `end` charges the time since the previous one to its phase. */
class PhaseClock {
  readonly phases = { load: 0, checks: 0, insert: 0, indexes: 0, commit: 0 };
  private last = performance.now();

  end(phase: keyof PhaseClock['phases']): void {
    const now = performance.now();
    this.phases[phase] += now - this.last;
    this.last = now;
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
