import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deleteWorkspace } from '../../src/store/delete-workspace.ts';
import { exportSnapshot } from '../../src/snapshot/export.ts';
import {
  importSnapshot,
  SnapshotImportError,
  type ImportIssue,
} from '../../src/snapshot/import.ts';
import { readSnapshot } from '../../src/snapshot/read-snapshot.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, tinySnapshot } from '../support/small-snapshot.ts';

type Snapshot = ReturnType<typeof smallSnapshot>;

describe('snapshot import', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await createHarness();
    dir = await mkdtemp(path.join(tmpdir(), 'll-import-'));
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM workspaces');
    const client = await h.pool.connect();
    try {
      await client.query('BEGIN');
      for (const { id } of rows) await deleteWorkspace(client, id);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });

  async function issuesOf(snapshot: unknown): Promise<ImportIssue[]> {
    const error = await h.importObject(snapshot).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SnapshotImportError);
    return (error as SnapshotImportError).issues;
  }

  async function rowCount(): Promise<number> {
    const { rows } = await h.pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM workspaces) + (SELECT count(*) FROM users) + (SELECT count(*) FROM time_entries)
            + (SELECT count(*) FROM api_tokens) AS n`,
    );
    return Number(rows[0]!.n);
  }

  function broken(change: (s: Snapshot) => void): Snapshot {
    const s = smallSnapshot();
    change(s);
    return s;
  }

  it('imports a valid snapshot', async () => {
    const result = await h.importObject(smallSnapshot());
    expect(result.rows).toMatchObject({
      users: 4,
      time_entries: 2,
      invoice_lines: 1,
      api_tokens: 7,
      team_payment_allocations: 1,
    });
  });

  it.each<[string, (s: Snapshot) => void, Partial<ImportIssue>]>([
    [
      'a bad enum value',
      (s) => void (s.projects[0]!.status = 'OPEN'),
      { entity: 'project', id: ids.project, field: 'status' },
    ],
    [
      'an impossible date',
      (s) => void (s.timeEntries[0]!.entryDate = '2026-02-30'),
      { entity: 'timeEntry', id: ids.entry1, field: 'entryDate' },
    ],
    [
      'a missing required field',
      (s) => void delete (s.clients[0] as { name?: string }).name,
      { entity: 'client', id: ids.client, field: 'name' },
    ],
    [
      'money with more decimals than its currency',
      (s) => void (s.expenses[0]!.amount = '84.205'),
      { entity: 'expense', id: ids.expense, field: 'amount' },
    ],
    [
      'money in exponent notation',
      (s) => void (s.payments[0]!.amount = '6.75e1'),
      { entity: 'payment', id: ids.payment, field: 'amount' },
    ],
    [
      'an unknown currency',
      (s) => void (s.clients[0]!.currency = 'XYZ'),
      { entity: 'client', id: ids.client, field: 'currency' },
    ],
    [
      'a reference to nothing',
      (s) => void (s.timeEntries[1]!.projectId = '40000000-0000-4000-8000-0000000000ff'),
      { entity: 'timeEntry', id: ids.entry2, field: 'projectId' },
    ],
    [
      'a duplicate id',
      (s) => void s.timeEntries.push({ ...s.timeEntries[1]! }),
      { entity: 'timeEntry', id: ids.entry2, field: 'id' },
    ],
    [
      'an invoiceId without a matching invoice line',
      (s) => void (s.timeEntries[1]!.invoiceId = ids.invoice),
      { entity: 'timeEntry', id: ids.entry2, field: 'invoiceId' },
    ],
    [
      'a task of another project',
      (s) => {
        s.projects.push({
          ...s.projects[0]!,
          id: '40000000-0000-4000-8000-000000000002',
          name: 'Other',
        });
        s.tasks[0]!.projectId = '40000000-0000-4000-8000-000000000002';
      },
      { entity: 'timeEntry', id: ids.entry1, field: 'taskId' },
    ],
    [
      "a bill line for someone else's entry",
      (s) => void (s.payees[0]!.userId = ids.owner),
      { entity: 'bill.line', id: ids.billLine, field: 'timeEntryId' },
    ],
    [
      'an allocation with more decimals than the bill currency',
      (s) => {
        s.bills[0]!.currency = 'JPY';
        s.bills[0]!.lines[0]!.amount = '68';
        s.payments[0]!.allocations[0]!.amount = '67.50';
      },
      { entity: 'payment', id: ids.payment, field: 'allocations.amount' },
    ],
    [
      'a malformed token',
      (s) => void (s.tokens[0]!.token = 'tt_test_short_secret'),
      { entity: 'token', field: 'token' },
    ],
    [
      'a token of a non-member',
      (s) => void (s.tokens[0]!.userId = '20000000-0000-4000-8000-0000000000ff'),
      { entity: 'token', field: 'userId' },
    ],
  ])(
    'reports %s with entity, id and field, and writes nothing',
    async (_name, change, expected) => {
      const issues = await issuesOf(broken(change));
      expect(issues).toContainEqual(expect.objectContaining(expected));
      expect(await rowCount()).toBe(0);
    },
  );

  it('reports every error of a file, not just the first', async () => {
    const issues = await issuesOf(
      broken((s) => {
        s.timeEntries[0]!.durationSeconds = -5;
        s.expenses[0]!.category = 'FOOD';
      }),
    );
    expect(issues.map((i) => i.field)).toEqual(
      expect.arrayContaining(['durationSeconds', 'category']),
    );
  });

  it('reports malformed NDJSON lines and unknown record types with their line numbers', async () => {
    const file = path.join(dir, 'bad.ndjson');
    const workspace = { type: 'workspace', version: 1, ...smallSnapshot().workspace };
    await writeFile(
      file,
      [
        JSON.stringify(workspace),
        '{"type": "user", "id": ',
        JSON.stringify({ type: 'spaceship', id: ids.owner }),
      ].join('\n'),
    );
    const error = (await importSnapshot(h.pool, readSnapshot(file)).catch(
      (e: unknown) => e,
    )) as SnapshotImportError;
    expect(error).toBeInstanceOf(SnapshotImportError);
    expect(error.issues).toEqual([
      { entity: 'snapshot', id: null, field: '', message: 'is not valid JSON', line: 2 },
      {
        entity: 'spaceship',
        id: ids.owner,
        field: 'type',
        message: 'is not a known record type',
        line: 3,
      },
    ]);
  });

  it('requires the workspace record first', async () => {
    const file = path.join(dir, 'order.ndjson');
    const s = smallSnapshot();
    await writeFile(
      file,
      [
        JSON.stringify({ type: 'user', ...s.users[0] }),
        JSON.stringify({ type: 'workspace', version: 1, ...s.workspace }),
      ].join('\n'),
    );
    const error = (await importSnapshot(h.pool, readSnapshot(file)).catch(
      (e: unknown) => e,
    )) as SnapshotImportError;
    expect(error.issues.map((i) => i.message)).toContain('the first record must be the workspace');
  });

  it('refuses an existing workspace unless asked to replace it, and replaces only that one', async () => {
    await h.importObject(smallSnapshot());
    await h.importObject(
      tinySnapshot(7, 'studio', 'tt_test_TinyStudio07_abcdefghijklmnopqrstuvwxyz012345'),
    );
    const issues = await issuesOf(smallSnapshot());
    expect(issues).toEqual([expect.objectContaining({ entity: 'workspace', field: 'id' })]);

    const smaller = broken((s) => {
      s.timeEntries = s.timeEntries.filter((e) => e.id === ids.entry1);
    });
    const result = await h.importObject(smaller, { replace: true });
    expect(result.replaced).toBe(true);
    const { rows } = await h.pool.query<{ workspace_id: string; n: string }>(
      'SELECT w.id AS workspace_id, (SELECT count(*) FROM users u WHERE u.workspace_id = w.id) AS n FROM workspaces w ORDER BY w.id',
    );
    expect(rows.map((r) => [r.workspace_id, Number(r.n)])).toEqual([
      [ids.workspace, 4],
      ['e0000007-0000-4000-8000-000000000001', 1],
    ]);
    const entries = await h.pool.query('SELECT id FROM time_entries');
    expect(entries.rows).toEqual([{ id: ids.entry1 }]);
  });

  it('refuses an id already used by another workspace', async () => {
    await h.importObject(smallSnapshot());
    const other = broken((s) => {
      s.workspace.id = '10000000-0000-4000-8000-0000000000ff';
      s.tokens = [];
      s.users = s.users.map((u) => ({ ...u }));
    });
    const issues = await issuesOf(other);
    expect(issues).toContainEqual(
      expect.objectContaining({
        entity: 'client',
        id: ids.client,
        message: 'is already used by another workspace',
      }),
    );
  });

  describe('round trip', () => {
    it.each(['json', 'ndjson'])(
      'exports what was imported, and re-imports to the same bytes (%s)',
      async (format) => {
        const original = smallSnapshot();
        await h.importObject(original);
        const first = path.join(dir, `first.${format}`);
        await exportSnapshot(h.pool, ids.workspace, first);
        const exported = await documentOf(first);
        expectSameData(exported, original);

        await importSnapshot(h.pool, readSnapshot(first), { replace: true });
        const second = path.join(dir, `second.${format}`);
        await exportSnapshot(h.pool, ids.workspace, second);
        expect(await readFile(second, 'utf8')).toBe(await readFile(first, 'utf8'));
      },
    );
  });
});

/** A snapshot file as one document, whatever its format. */
async function documentOf(file: string): Promise<Record<string, unknown>> {
  const text = await readFile(file, 'utf8');
  if (!file.endsWith('.ndjson')) return JSON.parse(text) as Record<string, unknown>;
  const doc: Record<string, unknown[]> = {};
  let workspace: Record<string, unknown> = {};
  const collections: Record<string, string> = {
    user: 'users',
    member: 'members',
    token: 'tokens',
    client: 'clients',
    project: 'projects',
    task: 'tasks',
    timeEntry: 'timeEntries',
    expense: 'expenses',
    invoice: 'invoices',
    payee: 'payees',
    bill: 'bills',
    payment: 'payments',
    fxRate: 'fxRates',
  };
  for (const line of text.split('\n').filter(Boolean)) {
    const { type, ...record } = JSON.parse(line) as { type: string } & Record<string, unknown>;
    if (type === 'workspace') workspace = record;
    else (doc[collections[type]!] ??= []).push(record);
  }
  const { version, ...head } = workspace;
  return { version, workspace: head, ...doc };
}

/**
 * Every value the original gave is in the export, equal as data: decimals by value,
 * timestamps by instant, records matched by id. Tokens come back as prefix and hash.
 */
function expectSameData(
  exported: Record<string, unknown>,
  original: Record<string, unknown>,
): void {
  for (const [key, value] of Object.entries(original)) {
    if (key === 'tokens') {
      expect((exported.tokens as unknown[]).length).toBe((value as unknown[]).length);
      continue;
    }
    expectSubset(exported[key], value, key);
  }
}

function expectSubset(actual: unknown, expected: unknown, where: string): void {
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), where).toBe(true);
    const list = actual as unknown[];
    expect(list.length, where).toBe(expected.length);
    const byId = (v: unknown) =>
      typeof v === 'object' && v !== null && 'id' in v ? String(v.id) : JSON.stringify(v);
    const sortedActual = [...list].sort((a, b) => byId(a).localeCompare(byId(b)));
    const sortedExpected = [...expected].sort((a, b) => byId(a).localeCompare(byId(b)));
    sortedExpected.forEach((e, i) => expectSubset(sortedActual[i], e, `${where}[${i}]`));
  } else if (typeof expected === 'object' && expected !== null) {
    for (const [key, value] of Object.entries(expected)) {
      if (value === null && !(key in (actual as object))) continue;
      expectSubset((actual as Record<string, unknown>)[key], value, `${where}.${key}`);
    }
  } else if (
    typeof expected === 'string' &&
    /^-?\d+(\.\d+)?$/.test(expected) &&
    typeof actual === 'string'
  ) {
    expect(
      Number.parseFloat(actual) === Number.parseFloat(expected) &&
        actual.replace(/\.?0+$/, '') === expected.replace(/\.?0+$/, ''),
      `${where}: ${actual} vs ${expected}`,
    ).toBe(true);
  } else if (typeof expected === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(expected)) {
    expect(new Date(actual as string).getTime(), where).toBe(new Date(expected).getTime());
  } else {
    expect(actual, where).toEqual(expected);
  }
}
