import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { TYPE_OF_COLLECTION, type Collection } from './records.ts';

/** One record of a snapshot as read, before validation. */
export type SnapshotLine =
  | { kind: 'record'; type: string; data: Record<string, unknown>; line?: number }
  | { kind: 'malformed'; line?: number; message: string };

/**
 * Reads a snapshot file as a stream of records, a batch at a time (a chunk of the file:
 * one await per batch, not per record): `.ndjson` files line by line (never whole, so
 * millions of records read with flat memory), JSON documents whole, in the same shape: the
 * workspace first (with the document's `version`), then every collection's records.
 */
export async function* readSnapshot(file: string): AsyncGenerator<SnapshotLine[]> {
  if (/\.(ndjson|jsonl)$/i.test(file)) yield* readNdjson(file);
  else yield* readJsonDocument(file);
}

async function* readNdjson(file: string): AsyncGenerator<SnapshotLine[]> {
  let line = 0;
  for await (const texts of ndjsonLines(file)) {
    let batch: SnapshotLine[] = [];
    for (const text of texts) {
      line++;
      if (text.trim() !== '') batch.push(recordOfLine(text, line));
      // Parsed records are handed on in small batches, so they die young (cheap to collect).
      if (batch.length === BATCH_RECORDS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
}

function recordOfLine(text: string, line: number): SnapshotLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'malformed', line, message: 'is not valid JSON' };
  }
  if (!isObject(parsed) || typeof parsed.type !== 'string') {
    return { kind: 'malformed', line, message: 'must be a JSON object with a string "type"' };
  }
  const { type, ...data } = parsed;
  return { kind: 'record', type, data, line };
}

const BATCH_RECORDS = 100;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * The lines of a file (without `\n` or `\r\n`), decoded one by one from the bytes read. A
 * line decodes on its own: one stray non-ASCII character then makes only its line a
 * two-byte string, where decoding a whole chunk made all of it one (and twice as slow).
 */
async function* ndjsonLines(file: string): AsyncGenerator<string[]> {
  // The start of a line that the previous chunk ended in.
  let carry: Buffer | undefined;
  for await (const read of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const chunk = read as Buffer;
    const lines: string[] = [];
    let start = 0;
    let end = chunk.indexOf(NEWLINE);
    if (carry) {
      if (end === -1) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      const first = Buffer.concat([carry, chunk.subarray(0, end)]);
      lines.push(decodeLine(first, 0, first.length));
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    for (; end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      lines.push(decodeLine(chunk, start, end));
      start = end + 1;
    }
    carry = start < chunk.length ? chunk.subarray(start) : undefined;
    yield lines;
  }
  if (carry) yield [decodeLine(carry, 0, carry.length)];
}

function decodeLine(chunk: Buffer, start: number, end: number): string {
  return chunk.toString(
    'utf8',
    start,
    end > start && chunk[end - 1] === CARRIAGE_RETURN ? end - 1 : end,
  );
}

async function* readJsonDocument(file: string): AsyncGenerator<SnapshotLine[]> {
  // A file that cannot be read is the caller's error to report, not a snapshot error.
  yield* batches(recordsOfDocument(await readFile(file, 'utf8')));
}

function* recordsOfDocument(text: string): Generator<SnapshotLine> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    yield { kind: 'malformed', message: 'the file is not valid JSON' };
    return;
  }
  if (!isObject(document)) {
    yield { kind: 'malformed', message: 'the document must be a JSON object' };
    return;
  }
  const { workspace, version, ...collections } = document;
  yield {
    kind: 'record',
    type: 'workspace',
    data: { ...(isObject(workspace) ? workspace : {}), version },
  };
  for (const [name, records] of Object.entries(collections)) {
    const type = TYPE_OF_COLLECTION[name as Collection] as string | undefined;
    if (type === undefined) {
      yield { kind: 'malformed', message: `unknown collection "${name}"` };
      continue;
    }
    if (!Array.isArray(records)) {
      yield { kind: 'malformed', message: `"${name}" must be an array` };
      continue;
    }
    for (const record of records) {
      yield isObject(record)
        ? { kind: 'record', type, data: record }
        : { kind: 'malformed', message: `every entry of "${name}" must be an object` };
    }
  }
}

/** A document's records in batches. */
function* batches(records: Iterable<SnapshotLine>): Generator<SnapshotLine[]> {
  let batch: SnapshotLine[] = [];
  for (const record of records) {
    batch.push(record);
    if (batch.length === BATCH_RECORDS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
