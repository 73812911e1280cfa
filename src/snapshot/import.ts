import type pg from 'pg';
import type { z } from 'zod';
import { allCurrencyScales } from '../money/currencies.ts';
import { trySetLocal } from '../store/foreign-key-triggers.ts';
import { IMPORT_CHECKS, UNIQUENESS_CHECKS, type ImportCheck } from './import-checks.ts';
import { insertStaged, straightPolicy, type StraightLoads } from './import-insert.ts';
import { STAGED_COLUMNS, stageRecord, TOKENS } from './import-rows.ts';
import { BinaryCopyRows, type RowSink } from './copy-binary.ts';
import { PlainLines } from './plain-lines.ts';
import { parseLine, type ParsedLine, type SnapshotLine } from './read-snapshot.ts';
import {
  RECORD_TYPES,
  SNAPSHOT_VERSION,
  workspaceRecord,
  type RecordType,
  type WorkspaceRecord,
} from './records.ts';
import { plainRecord } from './plain-records.ts';
import { Staging } from './staging.ts';
import { INSERT_ORDER } from './tables.ts';

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
  /**
   * Rows a table brings before its rows go straight into it, past staging (default
   * STRAIGHT_FROM_ROWS; the tests load smaller files that way).
   */
  straightFromRows?: number;
}

export interface ImportResult {
  workspaceId: string;
  replaced: boolean;
  /** Rows written per table. */
  rows: Record<string, number>;
  /** The tables whose rows went straight into them, past staging (docs/import.md). */
  loadedStraight: string[];
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
/** Every table a snapshot fills, each after the tables it references. */
export const LOAD_ORDER = [...INSERT_ORDER.slice(0, 2), TOKENS, ...INSERT_ORDER.slice(2)];
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
    const { workspace, staging, exists, straight } = loaded;
    clock.end('load');

    for (const table of LOAD_ORDER)
      if (staging.rows(table) > 0)
        await client.query(`ANALYZE ${staging.isStraight(table) ? table : `stage_${table}`}`);
    await check(client, workspace, issues, IMPORT_CHECKS);
    if (issues.total > 0) {
      await check(client, workspace, issues, UNIQUENESS_CHECKS);
      throw issues.toError();
    }
    clock.end('checks');

    await client.query('SAVEPOINT insert');
    const rows = await insertStaged(
      client,
      workspace,
      staging,
      exists,
      LOAD_ORDER,
      (phase) => clock.end(phase),
      straight,
    ).catch(async (error: unknown) => {
      if (!isUniqueViolation(error)) throw error;
      // A unique constraint tripped: name every offender (import-checks.ts).
      await client.query('ROLLBACK TO SAVEPOINT insert');
      await check(client, workspace, issues, UNIQUENESS_CHECKS);
      throw issues.total > 0 ? issues.toError() : error;
    });
    await client.query('COMMIT');
    // The views of the tables loaded straight outlive the transaction (temporary tables are
    // dropped at its commit): gone before the connection serves anyone else.
    for (const table of staging.straightTables) await client.query(`DROP VIEW stage_${table}`);
    clock.end('commit');
    return {
      workspaceId: workspace.id,
      replaced: exists,
      rows,
      loadedStraight: staging.straightTables,
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
  straight: StraightLoads;
}

async function loadRecords(
  client: pg.PoolClient,
  batches: AsyncIterable<SnapshotLine[]>,
  issues: IssueList,
  options: ImportOptions,
): Promise<Loaded | undefined> {
  const now = new Date().toISOString();
  let workspace: WorkspaceRecord | undefined;
  let target: Omit<Loaded, 'workspace'> | undefined;
  let plain: PlainLines | undefined;
  // Where the byte path checks records once nothing more will be staged.
  const scratch = new ScratchRows();
  let count = 0;
  const counted = () => {
    if (++count % 100_000 === 0) options.onProgress?.(count);
  };
  /** A record parsed: checked by the object fast path or its schema, staged when good. */
  const take = async (item: ParsedLine): Promise<void> => {
    if (item.kind === 'malformed') {
      issues.add({
        entity: 'snapshot',
        id: null,
        field: '',
        message: item.message,
        line: item.line,
      });
      return;
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
        return;
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
        return;
      }
      workspace = parsed.data;
      plain = new PlainLines(workspace.id, now);
      if (issues.total === 0) target = await openTarget(client, workspace, options, issues);
      return;
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
      return;
    }
    const type = item.type as RecordType;
    const parsed = parseRecord(type, item.data);
    if (!parsed.success) {
      issues.addZod(type, id, parsed.error, item.line);
      return;
    }
    if (!target || issues.total > 0) return;
    stageRecord(target.staging, type, parsed.data, workspace!.id, now, (message, field) =>
      issues.add({ entity: type, id, field, message, line: item.line }),
    );
    if (target.staging.full) await target.staging.send();
  };
  for await (const batch of batches) {
    for (const item of batch) {
      if (item.kind !== 'bytes') {
        counted();
        await take(item);
        continue;
      }
      const { bytes, starts, ends } = item;
      for (let i = 0; i < item.count; i++) {
        counted();
        // A record in the exact plain form is staged from its bytes (plain-lines.ts); any
        // other is parsed and goes to the object fast path or the schema.
        if (plain) {
          const keep = target !== undefined && issues.total === 0;
          const sink = keep ? target!.staging : scratch;
          if (plain.stage(sink, bytes, starts[i]!, ends[i]!, keep)) {
            // Looking at every table's buffer takes about 60 ns, a fourteenth of staging a
            // time entry: every 16th record is often enough (a buffer outgrows its 4 MiB by
            // at most 16 records).
            if (keep && (count & 15) === 0 && target!.staging.full) await target!.staging.send();
            continue;
          }
        }
        await take(parseLine(item, i));
      }
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
): Promise<Omit<Loaded, 'workspace'> | undefined> {
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
  // The staging tables are read through this session's local buffers (8 MB by default), so a
  // table of millions of rows went back and forth to the OS for every pass over it. The
  // setting can change only before the session's first use of a temporary table.
  await trySetLocal(client, 'temp_buffers', '1GB');
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
  // A table that brings more rows than it holds goes straight into the real table once its
  // staged rows show it (docs/import.md, "Loading straight into the large tables").
  const straight: StraightLoads = { rebuild: new Map(), workspaceDeleted: false };
  const staging = await Staging.create(client, STAGED_COLUMNS, {
    straight: straightPolicy(client, workspace, exists, straight, options.straightFromRows),
  });
  return { staging, exists, straight };
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

async function check(
  client: pg.PoolClient,
  workspace: WorkspaceRecord,
  issues: IssueList,
  rules: readonly ImportCheck[],
): Promise<void> {
  for (const rule of rules) {
    // Planned for every row, read up to the limit: under a LIMIT the planner counts on the first
    // rows to come soon, and a rule estimated to match most rows (a file without an error
    // matches none) got nested loops of the staged bills by millions of lines (10M entries:
    // past ten minutes for one rule, where a hash join takes seconds).
    const { rows } = await client.query<{ id: string | null; message?: string | null }>(
      `WITH offenders AS MATERIALIZED (${rule.sql}) SELECT * FROM offenders LIMIT ${MAX_ISSUES}`,
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

/** Rows written only to be dropped: each table's buffer is rolled back after every record. */
class ScratchRows implements RowSink {
  private readonly tables = new Map<string, BinaryCopyRows>();

  rowsOf(table: string): BinaryCopyRows {
    let rows = this.tables.get(table);
    if (!rows) {
      rows = new BinaryCopyRows();
      this.tables.set(table, rows);
    }
    return rows;
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
