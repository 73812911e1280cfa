/**
 * The generator's output read back: a workspace generated into memory (optionally through a
 * stream that applies backpressure) and its NDJSON lines parsed with the record schemas of
 * `src/snapshot/records.ts`, for the generator's tests in test/snapshot/.
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { generateWorkspace, type GenerateOptions } from '../../src/snapshot/generate.ts';
import {
  RECORD_TYPES,
  workspaceRecord,
  type RecordOf,
  type RecordType,
  type WorkspaceRecord,
} from '../../src/snapshot/records.ts';

export type Records = { [T in RecordType]: RecordOf<T>[] };

/** A Writable that keeps every chunk; `slow` acknowledges writes late, so backpressure kicks in. */
function memoryStream(slow = false): { stream: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    highWaterMark: slow ? 1024 : 16 * 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      if (slow) setImmediate(done);
      else done();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks) };
}

/** Generates a workspace into memory: its bytes and the counts the generator returned. */
export async function generate(options: GenerateOptions, slow = false) {
  const { stream, bytes } = memoryStream(slow);
  const { counts } = await generateWorkspace(options, stream);
  return { bytes: bytes(), counts };
}

/** The counts without the record types of which none were written. */
export const withoutZeros = (counts: Record<string, number>) =>
  Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export interface Snapshot {
  workspace: WorkspaceRecord;
  records: Records;
  lineTypes: Record<string, number>;
  errors: string[];
}

/** Parses NDJSON with the record schemas; each line that fails is reported in `errors`. */
export function parseSnapshot(text: string): Snapshot {
  const records = Object.fromEntries(
    Object.keys(RECORD_TYPES).map((t) => [t, []]),
  ) as unknown as Records;
  const lineTypes: Record<string, number> = {};
  const errors: string[] = [];
  const lines = text.split('\n');
  expect(lines.pop()).toBe('');
  const [first = '', ...rest] = lines;
  const {
    type: firstType,
    version,
    ...workspaceFields
  } = JSON.parse(first) as Record<string, unknown>;
  expect(firstType).toBe('workspace');
  expect(version).toBe(1);
  const workspace = workspaceRecord.safeParse(workspaceFields);
  if (!workspace.success) errors.push(`workspace: ${workspace.error.message}`);
  lineTypes.workspace = 1;
  for (const line of rest) {
    const { type, ...fields } = JSON.parse(line) as { type: string };
    lineTypes[type] = (lineTypes[type] ?? 0) + 1;
    if (!(type in RECORD_TYPES)) {
      errors.push(`unknown type ${type}`);
      continue;
    }
    const result = RECORD_TYPES[type as RecordType].schema.safeParse(fields);
    if (!result.success) {
      errors.push(`${type}: ${result.error.message} in ${line.slice(0, 200)}`);
      continue;
    }
    (records[type as RecordType] as unknown[]).push(result.data);
    errors.push(...unknownFields(fields, result.data, type));
  }
  return { workspace: workspace.data as WorkspaceRecord, records, lineTypes, errors };
}

/**
 * Fields of `input` that the schema dropped from its `output` (zod strips unknown keys), at
 * any depth: the generator must write only fields the snapshot format knows.
 */
function unknownFields(input: unknown, output: unknown, path: string): string[] {
  if (
    typeof input !== 'object' ||
    input === null ||
    typeof output !== 'object' ||
    output === null
  ) {
    return [];
  }
  return Object.entries(input).flatMap(([key, value]) =>
    key in output
      ? unknownFields(value, (output as Record<string, unknown>)[key], `${path}.${key}`)
      : [`${path}.${key} is not a field of the schema`],
  );
}
