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
  /** The record of `row`, for the workspace whose base currency is given. */
  render(row: Row, context: RenderContext): Promise<unknown>;
}

export interface RenderContext {
  workspaceId: string;
  baseCurrency: string;
  /** Reads the store, for what the row does not hold (a project's client's currency). */
  query: <T extends Row>(text: string, values: unknown[]) => Promise<T[]>;
}

/** One event of a committed transaction, before its body is rendered. */
export interface PendingEvent {
  id: string;
  type: string;
  workspaceId: string;
  recordId: string;
  source: WebhookRecordSource;
  /** The row after the transaction; null when it was deleted from the store. */
  row: Row | null;
  /** When the record counts as deleted (soft or hard): the body is its id and this. */
  deletedAt: Date | null;
}

/**
 * The events of one committed transaction: one per record it changed (several changes of one
 * record are one event, named by the record's state before the first and after the last).
 * Created and deleted within the transaction: none. An event's id is derived from the
 * commit's end position and the record, so the same stream read again makes the same ids.
 */
export function eventsOf(
  changes: readonly RowChange[],
  sources: ReadonlyMap<string, WebhookRecordSource>,
  endLsn: bigint,
  commitTime: Date,
): PendingEvent[] {
  const byRecord = new Map<
    string,
    { source: WebhookRecordSource; first: RowChange; last: RowChange }
  >();
  for (const change of changes) {
    const source = sources.get(change.table);
    if (!source) continue;
    const row = change.new ?? change.old;
    if (!row) continue;
    const key = `${change.table}/${String(row.id)}`;
    const seen = byRecord.get(key);
    if (seen) seen.last = change;
    else byRecord.set(key, { source, first: change, last: change });
  }
  const events: PendingEvent[] = [];
  for (const { source, first, last } of byRecord.values()) {
    const before = first.op === 'insert' ? null : first.old;
    const after = last.op === 'delete' ? null : last.new;
    if (before === null && after === null) continue;
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
      deletedAt,
    });
  }
  return events;
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
