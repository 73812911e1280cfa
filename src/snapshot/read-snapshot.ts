import { open, readFile } from 'node:fs/promises';
import { TYPE_OF_COLLECTION, type Collection } from './records.ts';

/** Records of a snapshot as read, before validation. */
export type SnapshotLine = ParsedLine | LineBytes;

export type ParsedLine =
  | { kind: 'record'; type: string; data: Record<string, unknown>; line?: number }
  | { kind: 'malformed'; line?: number; message: string };

/**
 * Lines of an NDJSON file that start with `{`, not decoded yet: line `i` is
 * `bytes[starts[i], ends[i])`, the file's line `lines[i]`. The importer first tries to
 * stage each straight from its bytes (plain-lines.ts) and decodes and parses it
 * (parseLine) only when that declines. No object per line: a million of them were a
 * tenth of the reading time, in garbage collection.
 */
export interface LineBytes {
  kind: 'bytes';
  bytes: Buffer;
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  lines: Int32Array;
}

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

/** Line `i` of `item` as JSON.parse reads its record (or why it is malformed). */
export function parseLine(item: LineBytes, i: number): ParsedLine {
  const text = item.bytes.toString('utf8', item.starts[i], item.ends[i]);
  return recordOfLine(text, item.lines[i]!);
}

function recordOfLine(text: string, line: number): ParsedLine {
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
const BATCH_LINES = 1024;
const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OPEN_BRACE = 0x7b;

/**
 * The lines of a file (without `\n` or `\r\n`), split in the bytes read, in batches. The
 * lines that start with `{` stay bytes (LineBytes); any other is decoded and parsed here
 * (blank ones skipped).
 *
 * The file is read in 1 MiB chunks into one buffer, reused for every chunk (a line that
 * does not fit grows it): fresh chunks, freed only when the garbage collector runs, which
 * the byte path gives little reason to, took the process to a gigabyte and most of the
 * reading time in page faults. So the lines of a batch are valid until the next batch is
 * asked for: a batch is used before the next.
 */
async function* readNdjson(file: string): AsyncGenerator<SnapshotLine[]> {
  const handle = await open(file, 'r');
  try {
    let buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES);
    // Bytes in `buffer`: the unfinished line of the previous chunk, then the new chunk.
    let filled = 0;
    let line = 0;
    let batch: SnapshotLine[] = [];
    let run: LineBytes | undefined;
    let lines = 0;
    const add = (start: number, end: number) => {
      line++;
      if (end > start && buffer[end - 1] === CARRIAGE_RETURN) end--;
      lines++;
      if (buffer[start] === OPEN_BRACE) {
        if (!run) {
          run = {
            kind: 'bytes',
            bytes: buffer,
            count: 0,
            starts: new Int32Array(BATCH_LINES),
            ends: new Int32Array(BATCH_LINES),
            lines: new Int32Array(BATCH_LINES),
          };
          batch.push(run);
        }
        run.starts[run.count] = start;
        run.ends[run.count] = end;
        run.lines[run.count++] = line;
        return;
      }
      run = undefined;
      const text = buffer.toString('utf8', start, end);
      if (text.trim() !== '') batch.push(recordOfLine(text, line));
    };
    const take = () => {
      const taken = batch;
      batch = [];
      run = undefined;
      lines = 0;
      return taken;
    };
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      filled += bytesRead;
      const bytes = buffer.subarray(0, filled);
      let start = 0;
      for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
        add(start, end);
        start = end + 1;
        if (lines === BATCH_LINES) yield take();
      }
      if (bytesRead === 0 && start < filled) {
        add(start, filled);
        start = filled;
      }
      if (batch.length > 0) yield take();
      else take();
      if (bytesRead === 0) return;
      // The unfinished line moves to the front; a line longer than the buffer grows it.
      buffer.copyWithin(0, start, filled);
      filled -= start;
      if (filled === buffer.length) {
        const grown = Buffer.allocUnsafeSlow(buffer.length * 2);
        buffer.copy(grown, 0, 0, filled);
        buffer = grown;
      }
    }
  } finally {
    await handle.close();
  }
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
