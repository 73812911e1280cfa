import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { TYPE_OF_COLLECTION, type Collection } from './records.ts';

/** One record of a snapshot as read, before validation. */
export type SnapshotLine =
  | { kind: 'record'; type: string; data: Record<string, unknown>; line?: number }
  | { kind: 'malformed'; line?: number; message: string };

/**
 * Reads a snapshot file as a stream of records: `.ndjson` files line by line (never whole,
 * so millions of records read with flat memory), JSON documents whole, in the same shape:
 * the workspace first (with the document's `version`), then every collection's records.
 */
export async function* readSnapshot(file: string): AsyncGenerator<SnapshotLine> {
  if (/\.(ndjson|jsonl)$/i.test(file)) yield* readNdjson(file);
  else yield* readJsonDocument(file);
}

async function* readNdjson(file: string): AsyncGenerator<SnapshotLine> {
  let line = 0;
  for await (const text of ndjsonLines(file)) {
    line++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      yield { kind: 'malformed', line, message: 'is not valid JSON' };
      continue;
    }
    if (!isObject(parsed) || typeof parsed.type !== 'string') {
      yield { kind: 'malformed', line, message: 'must be a JSON object with a string "type"' };
      continue;
    }
    const { type, ...data } = parsed;
    yield { kind: 'record', type, data, line };
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * The lines of a file (without `\n` or `\r\n`), decoded one by one from the bytes read. A
 * line decodes on its own: one stray non-ASCII character then makes only its line a
 * two-byte string, where decoding a whole chunk made all of it one (and twice as slow).
 */
async function* ndjsonLines(file: string): AsyncGenerator<string> {
  let carry: Buffer | undefined;
  for await (const read of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const chunk = carry ? Buffer.concat([carry, read as Buffer]) : (read as Buffer);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      yield decodeLine(chunk, start, end);
      start = end + 1;
    }
    carry = start < chunk.length ? chunk.subarray(start) : undefined;
  }
  if (carry) yield decodeLine(carry, 0, carry.length);
}

function decodeLine(chunk: Buffer, start: number, end: number): string {
  return chunk.toString(
    'utf8',
    start,
    end > start && chunk[end - 1] === CARRIAGE_RETURN ? end - 1 : end,
  );
}

async function* readJsonDocument(file: string): AsyncGenerator<SnapshotLine> {
  // A file that cannot be read is the caller's error to report, not a snapshot error.
  const text = await readFile(file, 'utf8');
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
