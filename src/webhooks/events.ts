import { createHash } from 'node:crypto';
import type { Row, RowChange } from './change-reader.ts';

/**
 * How a table's records become events: the kind that names them (`client` in
 * `client.created`), and the record as the API answers it to an Owner, from the row as the
 * store holds it after the change. The composition root registers one per table
 * (src/cli/webhook-records.ts), from the resources' own row -> record functions.
 */
export interface WebhookRecordSource {
  table: string;
  kind: string;
  /**
   * The record of `row`, for the workspace whose base currency is given; undefined when the
   * API does not answer it to an Owner (a draft bill of a plan without drafts): no event.
   */
  render(row: Row, context: RenderContext): Promise<unknown>;
  /** Rows of other tables the record is made of (a bill's lines, a payee's rates). */
  parts?: readonly RecordPart[];
}

/**
 * A table whose rows are parts of a record: a committed change of one is a change of the
 * records it belongs to, an `updated` of each (unless the record's own row changed too).
 */
export interface RecordPart {
  table: string;
  /** The ids of the records the row belongs to (a row of the change, before or after it). */
  recordIds(row: Row, query: StoreQuery): Promise<RecordId[]> | RecordId[];
}

/** A record's id as a row holds it: a uuid's text, or null where a part belongs to none. */
export type RecordId = string | null | undefined;

/** Reads the store. */
export type StoreQuery = <T extends Row>(text: string, values: unknown[]) => Promise<T[]>;

export interface RenderContext {
  workspaceId: string;
  baseCurrency: string;
  plan: string;
  /** Reads the store, for what the row does not hold (a project's client's currency). */
  query: StoreQuery;
}

/** One event of a committed transaction, before its body is rendered. */
export interface PendingEvent {
  id: string;
  type: string;
  workspaceId: string;
  recordId: string;
  source: WebhookRecordSource;
  /**
   * The row after the transaction; null when it was deleted from the store, or when only
   * parts of the record changed (`partOnly`): the producer reads it from the store then.
   */
  row: Row | null;
  partOnly: boolean;
  /** When the record counts as deleted (soft or hard): the body is its id and this. */
  deletedAt: Date | null;
}

/**
 * The events of one committed transaction: one per record it changed (several changes of one
 * record are one event, named by the record's state before the first and after the last).
 * Created and deleted within the transaction, or left as it was: none. A record whose parts
 * changed (and were not left as they were) but not its own row: one `updated`. An event's id
 * is derived from the commit's end position and the record, so the same stream read again
 * makes the same ids.
 */
export async function eventsOf(
  changes: readonly RowChange[],
  sources: readonly WebhookRecordSource[],
  endLsn: bigint,
  commitTime: Date,
  query: StoreQuery,
): Promise<PendingEvent[]> {
  const own = new Map(sources.map((s) => [s.table, s]));
  // Each row's first and last change in the transaction.
  const byRow = new Map<string, { first: RowChange; last: RowChange }>();
  for (const change of changes) {
    const key = `${change.table}/${rowKey(change)}`;
    const seen = byRow.get(key);
    if (seen) seen.last = change;
    else byRow.set(key, { first: change, last: change });
  }
  const byRecord = new Map<
    string,
    { source: WebhookRecordSource; before: Row | null; after: Row | null }
  >();
  // Records whose parts changed: source table/id -> the source and the workspace.
  const touched = new Map<string, { source: WebhookRecordSource; id: string; workspace: string }>();
  for (const { first, last } of byRow.values()) {
    const before = first.op === 'insert' ? null : first.old;
    const after = last.op === 'delete' ? null : last.new;
    // Made and gone again, or written again as it was but for its updated_at (an import that
    // replaces a workspace rewrites every row): no change.
    if (before === null && after === null) continue;
    if (before !== null && after !== null && sameRow(before, after)) continue;
    const source = own.get(first.table);
    if (source)
      byRecord.set(`${source.table}/${String((after ?? before)!.id)}`, { source, before, after });
    for (const whole of sources)
      for (const part of whole.parts ?? []) {
        if (part.table !== first.table) continue;
        for (const partRow of [before, after]) {
          if (!partRow) continue;
          for (const id of await part.recordIds(partRow, query)) {
            if (id === null || id === undefined) continue;
            touched.set(`${whole.table}/${id}`, {
              source: whole,
              id,
              workspace: String(partRow.workspace_id),
            });
          }
        }
      }
  }
  const events: PendingEvent[] = [];
  for (const { source, before, after } of byRecord.values()) {
    const row = (after ?? before)!;
    const action = actionOf(source.kind, before, after);
    if (action === undefined) continue;
    const recordId = String(row.id);
    const deletedAt =
      after === null
        ? commitTime
        : after.deleted_at instanceof Date && action === 'deleted'
          ? after.deleted_at
          : null;
    events.push({
      id: eventId(endLsn, source.table, recordId),
      type: `${source.kind}.${action}`,
      workspaceId: String(row.workspace_id),
      recordId,
      source,
      row: after,
      partOnly: false,
      deletedAt,
    });
  }
  for (const [key, { source, id, workspace }] of touched) {
    // The record's own row changed too: its event says so already.
    if (byRecord.has(key)) continue;
    events.push({
      id: eventId(endLsn, source.table, id),
      type: `${source.kind}.updated`,
      workspaceId: workspace,
      recordId: id,
      source,
      row: null,
      partOnly: true,
      deletedAt: null,
    });
  }
  return events;
}

/**
 * What names a row within its table: its id, or where it has none (a payment's allocation to
 * a bill) the ids it holds.
 */
export function rowKey(change: RowChange): string {
  const row = (change.new ?? change.old)!;
  if (typeof row.id === 'string') return row.id;
  return Object.keys(row)
    .filter((column) => column.endsWith('_id'))
    .sort()
    .map((column) => String(row[column] as string))
    .join('/');
}

/** Whether two states of a row hold the same, but for when it was last written. */
function sameRow(a: Row, b: Row): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => {
    if (key === 'updated_at') return true;
    const [x, y] = [a[key], b[key]];
    if (x instanceof Date && y instanceof Date) return x.getTime() === y.getTime();
    if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null)
      return JSON.stringify(x) === JSON.stringify(y);
    return x === y;
  });
}

/** What happened to a record between two states of it (null: not in the store). */
function actionOf(kind: string, before: Row | null, after: Row | null): string | undefined {
  const deleted = (row: Row | null) =>
    row === null || (row.deleted_at !== undefined && row.deleted_at !== null);
  if (deleted(after)) return deleted(before) ? undefined : 'deleted';
  if (kind === 'team_payment') {
    if (before === null || deleted(before)) return 'recorded';
    return before.status !== 'REVERSED' && after!.status === 'REVERSED' ? 'reversed' : 'updated';
  }
  if (before === null || deleted(before)) return 'created';
  if (kind === 'team_bill' && before.status !== after!.status) {
    if (after!.status === 'APPROVED') return 'approved';
    if (after!.status === 'VOID') return 'voided';
  }
  return 'updated';
}

/** `msg_` + 26 characters of base32 of a hash of (commit end, table, record). */
export function eventId(endLsn: bigint, table: string, recordId: string): string {
  const digest = createHash('sha256').update(`${endLsn}/${table}/${recordId}`).digest();
  return `msg_${base32(digest).slice(0, 26)}`;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}
