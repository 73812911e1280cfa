import { createWriteStream } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWorkspace } from '../../src/snapshot/generate.ts';
import { importSnapshot, SnapshotImportError } from '../../src/snapshot/import.ts';
import { readSnapshot } from '../../src/snapshot/read-snapshot.ts';
import { createHarness, type Harness } from '../support/harness.ts';

/**
 * Imports large enough that a table's indexes are dropped for the insert and built again
 * after (import.ts, REBUILD_INDEXES_FROM_ROWS), beside a smaller import that keeps them.
 */
describe('large snapshot import', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await createHarness();
    dir = await mkdtemp(path.join(tmpdir(), 'll-import-large-'));
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function generated(name: string, timeEntries: number, seed: number): Promise<string> {
    const file = path.join(dir, `${name}.ndjson`);
    const out = createWriteStream(file);
    await generateWorkspace({ timeEntries, seed }, out);
    await new Promise<void>((resolve) => out.end(() => resolve()));
    return file;
  }

  /** Definition, validity and object id of each index of time_entries, by name. */
  async function indexes(): Promise<Map<string, { definition: string; oid: number }>> {
    const { rows } = await h.pool.query<{ name: string; definition: string; oid: number }>(
      `SELECT indexrelid::regclass::text AS name, indexrelid::int AS oid,
              pg_get_indexdef(indexrelid) || CASE WHEN indisvalid THEN '' ELSE ' (invalid)' END AS definition
       FROM pg_index WHERE indrelid = 'time_entries'::regclass`,
    );
    return new Map(rows.map((r) => [r.name, { definition: r.definition, oid: r.oid }]));
  }

  /** Every key and reference of time_entries or pointing at it, with its validity. */
  async function constraints(): Promise<string[]> {
    const { rows } = await h.pool.query<{ c: string }>(
      `SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) ||
              CASE WHEN convalidated THEN '' ELSE ' (not valid)' END AS c
       FROM pg_constraint
       WHERE 'time_entries'::regclass IN (conrelid, confrelid) AND contype IN ('p', 'u', 'f')
       ORDER BY 1`,
    );
    return rows.map((r) => r.c);
  }

  const definitions = (m: Map<string, { definition: string }>) =>
    new Map([...m].map(([name, { definition }]) => [name, definition]));

  async function countOf(table: string): Promise<number> {
    const { rows } = await h.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    return Number(rows[0]!.n);
  }

  it('writes nothing for a bad file, and leaves the indexes as they were', async () => {
    const file = await generated('bad', 12_000, 3);
    const before = await indexes();
    const keys = await constraints();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const entry = lines.findLast((l) => l.startsWith('{"type":"timeEntry"'))!;
    const { id } = JSON.parse(entry) as { id: string };
    await appendFile(file, `\n${entry}\n`);

    // Loaded straight into time_entries: the duplicate surfaces when its key is built.
    const error = await importSnapshot(h.pool, readSnapshot(file), {
      straightFromRows: 10_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotImportError);
    expect((error as SnapshotImportError).issues).toContainEqual(
      expect.objectContaining({ entity: 'timeEntry', id, field: 'id' }),
    );
    expect(await countOf('workspaces')).toBe(0);
    expect(await countOf('time_entries')).toBe(0);
    expect(await indexes()).toEqual(before);
    expect(await constraints()).toEqual(keys);
  });

  it('names each error of a plain record with entity, id, field and line, and writes nothing', async () => {
    const file = await generated('errors', 12_000, 5);
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const at = (prefix: string, from: number) =>
      lines.findIndex((l, i) => i >= from && l.startsWith(prefix));
    const entryAt = at('{"type":"timeEntry"', 5000);
    const entry = JSON.parse(lines[entryAt]!) as { id: string };
    lines[entryAt] = lines[entryAt]!.replace(
      /"entryDate":"\d{4}-\d{2}-\d{2}"/,
      '"entryDate":"2025-02-29"',
    );
    const invoiceAt = at('{"type":"invoice"', 0);
    const invoice = JSON.parse(lines[invoiceAt]!) as { id: string };
    lines[invoiceAt] = lines[invoiceAt]!.replace(/"amount":"(-?\d+)\.(\d+)"/, '"amount":"$1.$21"');
    const billAt = at('{"type":"bill"', 0);
    const bill = JSON.parse(lines[billAt]!) as { id: string };
    lines[billAt] = lines[billAt]!.replace(/"timeEntryId":"[0-9a-f-]{36}"/, '"timeEntryId":null');
    await writeFile(file, `${lines.join('\n')}\n`);

    const error = await importSnapshot(h.pool, readSnapshot(file)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotImportError);
    const expected = [
      { entity: 'timeEntry', id: entry.id, field: 'entryDate', line: entryAt + 1 },
      { entity: 'invoice', id: invoice.id, field: 'lines.0.amount', line: invoiceAt + 1 },
      { entity: 'bill', id: bill.id, field: 'lines.0.timeEntryId', line: billAt + 1 },
    ].sort((a, b) => a.line - b.line);
    expect((error as SnapshotImportError).issues).toEqual(
      expected.map((issue): unknown => expect.objectContaining(issue)),
    );
    expect(await countOf('workspaces')).toBe(0);
    expect(await countOf('time_entries')).toBe(0);
  });

  it('builds the indexes of a table it fills again, as they were', async () => {
    const file = await generated('large', 12_000, 3);
    const before = await indexes();
    const keys = await constraints();
    // Staged (fewer rows than STRAIGHT_FROM_ROWS), its indexes dropped for the insert.
    const result = await importSnapshot(h.pool, readSnapshot(file));
    expect(result.rows.time_entries).toBe(12_000);
    expect(result.loadedStraight).toEqual([]);
    expect(await constraints()).toEqual(keys);
    expect(keys).toContainEqual(
      expect.stringMatching(/^time_entries time_entries_pkey PRIMARY KEY/),
    );
    expect(keys).toContainEqual(expect.stringMatching(/^invoice_lines .* REFERENCES time_entries/));
    expect(await countOf('time_entries')).toBe(12_000);
    const after = await indexes();
    expect(definitions(after)).toEqual(definitions(before));
    expect(after.get('time_entries_user_date_idx')!.oid).not.toBe(
      before.get('time_entries_user_date_idx')!.oid,
    );
  });

  it('keeps the indexes of a table that already holds more rows than it brings', async () => {
    await h.pool.query('ANALYZE time_entries');
    const before = await indexes();
    const result = await importSnapshot(
      h.pool,
      readSnapshot(await generated('smaller', 11_000, 4)),
    );
    expect(result.rows.time_entries).toBe(11_000);
    expect(result.loadedStraight).toEqual([]);
    expect(await countOf('time_entries')).toBe(23_000);
    expect(await indexes()).toEqual(before);
  });

  it('replaces a large workspace it imported before', async () => {
    const keys = await constraints();
    const result = await importSnapshot(h.pool, readSnapshot(path.join(dir, 'large.ndjson')), {
      replace: true,
    });
    expect(result.replaced).toBe(true);
    expect(await countOf('time_entries')).toBe(23_000);
    expect(await constraints()).toEqual(keys);
  });

  it('replaces a workspace with a larger one, its rows loaded straight into the emptied tables', async () => {
    // The same seed, the same workspace id, more entries than the store's time_entries hold:
    // the old workspace is deleted before the first straight COPY, and every other workspace's
    // rows stay.
    const file = await generated('larger', 40_000, 3);
    const { rows: others } = await h.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM time_entries
       WHERE workspace_id <> (SELECT workspace_id FROM time_entries GROUP BY 1 ORDER BY count(*) DESC LIMIT 1)`,
    );
    const keys = await constraints();
    const before = await indexes();
    const result = await importSnapshot(h.pool, readSnapshot(file), {
      replace: true,
      straightFromRows: 10_000,
    });
    expect(result.replaced).toBe(true);
    expect(result.rows.time_entries).toBe(40_000);
    expect(result.loadedStraight).toContain('time_entries');
    expect(await countOf('time_entries')).toBe(40_000 + Number(others[0]!.n));
    expect(await constraints()).toEqual(keys);
    expect(definitions(await indexes())).toEqual(definitions(before));
    // Each entry as the file has it.
    const entries = (await readFile(file, 'utf8'))
      .split('\n')
      .filter((l) => l.startsWith('{"type":"timeEntry"'))
      .map((l) => JSON.parse(l) as { id: string; durationSeconds: number | null; note: string });
    const { rows } = await h.pool.query<{
      id: string;
      duration_seconds: number | null;
      note: string;
    }>('SELECT id, duration_seconds, note FROM time_entries WHERE workspace_id = $1', [
      result.workspaceId,
    ]);
    const stored = new Map(rows.map((r) => [r.id, r]));
    expect(stored.size).toBe(entries.length);
    for (const entry of entries) {
      const row = stored.get(entry.id);
      expect(row, entry.id).toBeDefined();
      expect(row!.duration_seconds).toBe(entry.durationSeconds);
      expect(row!.note).toBe(entry.note);
    }
    // The connection that imported serves the next import: no view of it is left behind.
    const again = await importSnapshot(h.pool, readSnapshot(file), {
      replace: true,
      straightFromRows: 10_000,
    });
    expect(again.rows.time_entries).toBe(40_000);
  });
});
