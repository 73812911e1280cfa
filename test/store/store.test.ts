import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createPool } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createTestDatabase } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';

describe('operational store', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('re-running the migrations applies nothing and changes nothing', async () => {
    expect(await migrate(pool)).toEqual([]);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0].n).toBeGreaterThan(0);
  });

  it('runs every session in UTC, so timestamps leave as UTC text', async () => {
    const { rows } = await pool.query<{ TimeZone: string }>('SHOW TimeZone');
    expect(rows[0]!.TimeZone).toBe('UTC');
  });

  it('refuses a reference into another workspace', async () => {
    const a = '00000000-0000-4000-8000-00000000000a';
    const b = '00000000-0000-4000-8000-00000000000b';
    for (const id of [a, b]) {
      await pool.query(
        "INSERT INTO workspaces (id, name, plan, base_currency, timezone) VALUES ($1, 'W', 'agency', 'EUR', 'UTC')",
        [id],
      );
    }
    await pool.query(
      "INSERT INTO clients (id, workspace_id, name) VALUES ('00000000-0000-4000-8000-0000000000c1', $1, 'C')",
      [a],
    );
    await expect(
      pool.query(
        "INSERT INTO projects (id, workspace_id, client_id, name) VALUES ('00000000-0000-4000-8000-0000000000f1', $1, '00000000-0000-4000-8000-0000000000c1', 'P')",
        [b],
      ),
    ).rejects.toThrow(/foreign key/);
  });
});

/** The store at migration `upTo`, holding the small workspace; `drop` removes it. */
async function storeBefore0007(
  upTo = '0006_auth_change_notify',
): Promise<{ pool: pg.Pool; drop: () => Promise<void> }> {
  const db = await createTestDatabase({ migrated: false });
  const pool = createPool(db.url);
  await migrate(pool, { upTo });
  const snapshot = smallSnapshot();
  // Valid values at the ends of the range must survive the migration.
  Object.assign(snapshot.tasks[0]!, { startDate: '0001-01-01', dueDate: '9999-12-31' });
  await importObject(pool, snapshot);
  return {
    pool,
    drop: async () => {
      await pool.end();
      await db.drop();
    },
  };
}

interface CheckedColumn {
  table: string;
  column: string;
  type: string;
}

describe('values the read model cannot hold (0007_storable_values)', () => {
  let store: Awaited<ReturnType<typeof storeBefore0007>>;
  let columns: CheckedColumn[];
  beforeAll(async () => {
    store = await storeBefore0007();
    expect(await migrate(store.pool, { upTo: '0007_storable_values' })).toEqual([
      '0007_storable_values',
    ]);
    columns = (
      await store.pool.query<CheckedColumn>(
        `SELECT c.table_name AS table, c.column_name AS column, c.data_type AS type
         FROM information_schema.columns c
         JOIN information_schema.tables t USING (table_schema, table_name)
         WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
           AND c.table_name <> 'schema_migrations'
           AND c.data_type IN ('date', 'timestamp with time zone', 'timestamp without time zone', 'numeric')
         ORDER BY 1, 2`,
      )
    ).rows;
  });
  afterAll(() => store.drop());

  it('runs on a store holding data, and keeps it', async () => {
    const { rows } = await store.pool.query<{ start_date: string; due_date: string }>(
      'SELECT start_date::text, due_date::text FROM tasks WHERE id = $1',
      [ids.task],
    );
    expect(rows).toEqual([{ start_date: '0001-01-01', due_date: '9999-12-31' }]);
  });

  it('gives every date, timestamp and numeric column its CHECK', async () => {
    expect(columns.length).toBeGreaterThan(60);
    const { rows } = await store.pool.query<{ name: string }>(
      "SELECT conname AS name FROM pg_constraint WHERE contype = 'c'",
    );
    const names = new Set(rows.map((r) => r.name));
    const missing = columns
      .map((c) => `${c.table}_${c.column}_${c.type === 'numeric' ? 'not_nan' : 'years'}`)
      .filter((name) => !names.has(name));
    expect(missing).toEqual([]);
  });

  it('refuses a direct SQL write of each value outside them, in every such column', async () => {
    // Every table gets a row, so that an UPDATE of it has something to refuse.
    await store.pool.query(
      "INSERT INTO server_secrets (name, secret) VALUES ('test', decode(repeat('ab', 32), 'hex'))",
    );
    await store.pool.query(
      `INSERT INTO idempotency_keys (workspace_id, token_prefix, key, method, path, body_sha256)
       SELECT workspace_id, prefix, 'k', 'POST', '/x', decode(repeat('ab', 32), 'hex')
       FROM api_tokens LIMIT 1`,
    );
    const bad: Record<string, string[]> = {
      numeric: ['NaN'],
      date: ['0001-12-31 BC', '10000-01-01', 'infinity', '-infinity'],
      'timestamp with time zone': [
        '0001-12-31 23:00:00+00 BC',
        // Year 1 in Berlin, year 0 in UTC.
        '0001-01-01 00:30:00+01',
        '10000-01-01 00:00:00+00',
        'infinity',
        '-infinity',
      ],
    };
    const writes: Write[] = [];
    for (const { table, column, type } of columns) {
      const { rows } = await store.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${table}"`,
      );
      expect(rows[0]!.n, table).toBeGreaterThan(0);
      for (const value of bad[type] ?? []) {
        writes.push({
          label: `${table}.${column} = ${value}`,
          sql: `UPDATE "${table}" SET "${column}" = $1`,
          values: [value],
        });
      }
    }
    expect(await acceptedWrites(store.pool, writes)).toEqual([]);
  });

  it('takes the first and last day and instant of the range', async () => {
    await store.pool.query(
      `UPDATE time_entries SET started_at = '0001-01-01 00:00:00+00',
         stopped_at = '9999-12-31 23:59:59.999999+00', entry_date = '9999-12-31' WHERE id = $1`,
      [ids.entry2],
    );
  });

  it('fails on a store already holding such a value, naming the constraint, and changes nothing', async () => {
    const old = await storeBefore0007();
    try {
      await old.pool.query(
        "UPDATE time_entries SET started_at = '0001-01-01 09:00:00+00 BC' WHERE id = $1",
        [ids.entry2],
      );
      await expect(migrate(old.pool)).rejects.toThrow(/time_entries_started_at_years/);
      const { rows } = await old.pool.query(
        "SELECT version FROM schema_migrations WHERE version LIKE '0007%'",
      );
      expect(rows).toEqual([]);
    } finally {
      await old.drop();
    }
  });
});

/** An UPDATE a test expects the store to refuse, named for the failure message. */
interface Write {
  label: string;
  sql: string;
  values?: unknown[];
}

/**
 * The writes of `writes` the store takes, each tried in a transaction rolled back after it: a
 * refused one must be refused by a CHECK (SQLSTATE 23514), a taken one must have changed rows.
 */
async function acceptedWrites(pool: pg.Pool, writes: Write[]): Promise<string[]> {
  const client = await pool.connect();
  const accepted: string[] = [];
  try {
    for (const { label, sql, values } of writes) {
      await client.query('BEGIN');
      try {
        const { rowCount } = await client.query(sql, values);
        expect(rowCount, label).toBeGreaterThan(0);
        accepted.push(label);
      } catch (error) {
        expect((error as { code?: string }).code, label).toBe('23514');
      } finally {
        await client.query('ROLLBACK');
      }
    }
  } finally {
    client.release();
  }
  return accepted;
}

/** Keys, references and indexes of the schema, as the catalog defines them. */
async function keysAndIndexes(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ d: string }>(
    `SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) ||
            CASE WHEN convalidated THEN '' ELSE ' (not valid)' END AS d
     FROM pg_constraint WHERE contype IN ('p', 'u', 'f') AND connamespace = 'public'::regnamespace
     UNION ALL
     SELECT pg_get_indexdef(indexrelid) FROM pg_index
     WHERE indrelid::regclass::text NOT LIKE 'pg_%'
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = indexrelid)
     ORDER BY 1`,
  );
  return rows.map((r) => r.d);
}

describe('keys that lead with the record id (0008_keys_lead_with_ids)', () => {
  it('turns every composite key and reference index round on a store with rows, and keeps every reference', async () => {
    const fresh = await createTestDatabase();
    const freshPool = createPool(fresh.url);
    const store = await storeBefore0007('0007_storable_values');
    try {
      const before = await keysAndIndexes(store.pool);
      const count = async () =>
        (await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM time_entries'))
          .rows[0]!.n;
      const entries = await count();
      expect(before).toContainEqual(expect.stringMatching(/UNIQUE \(workspace_id, id\)$/));

      expect(await migrate(store.pool, { upTo: '0008_keys_lead_with_ids' })).toEqual([
        '0008_keys_lead_with_ids',
      ]);
      // With the migrations after it, the same keys and indexes as a store made fresh.
      await migrate(store.pool);
      const after = await keysAndIndexes(store.pool);
      expect(after).toEqual(await keysAndIndexes(freshPool));
      expect(
        after.filter((d) =>
          /UNIQUE \(workspace_id, id\)|INDEX .*\(workspace_id, \w+_id\)$/.test(d),
        ),
      ).toEqual([]);
      // The references of the tables 0008 turned round, as they were (later tables add theirs).
      const tablesBefore = new Set(before.map((d) => d.split(' ')[0]));
      expect(
        after.filter((d) => d.includes('FOREIGN KEY') && tablesBefore.has(d.split(' ')[0])),
      ).toEqual(before.filter((d) => d.includes('FOREIGN KEY')));
      expect(after.filter((d) => d.includes('not valid'))).toEqual([]);
      expect(await count()).toBe(entries);
      expect(entries).toBeGreaterThan(0);
    } finally {
      await store.drop();
      await freshPool.end();
      await fresh.drop();
    }
  });
});

describe('NULL elements in arrays (0009_array_elements)', () => {
  let store: Awaited<ReturnType<typeof storeBefore0007>>;
  let columns: { table: string; column: string }[];
  beforeAll(async () => {
    store = await storeBefore0007('0008_keys_lead_with_ids');
    expect(await migrate(store.pool, { upTo: '0009_array_elements' })).toEqual([
      '0009_array_elements',
    ]);
    columns = (
      await store.pool.query<{ table: string; column: string }>(
        `SELECT c.table_name AS table, c.column_name AS column
         FROM information_schema.columns c
         JOIN information_schema.tables t USING (table_schema, table_name)
         WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
           AND c.data_type = 'ARRAY'
         ORDER BY 1, 2`,
      )
    ).rows;
  });
  afterAll(() => store.drop());

  it('gives every array column its CHECK', async () => {
    expect(columns).toEqual([
      { table: 'api_tokens', column: 'scopes' },
      { table: 'tasks', column: 'assignee_ids' },
      { table: 'tasks', column: 'tags' },
    ]);
    const { rows } = await store.pool.query<{ name: string }>(
      "SELECT conname AS name FROM pg_constraint WHERE contype = 'c' AND conname LIKE '%_no_null_elements'",
    );
    expect(rows.map((r) => r.name).sort()).toEqual(
      columns.map((c) => `${c.table}_${c.column}_no_null_elements`),
    );
  });

  it('refuses a direct SQL write of a NULL element, in every array column and any dimension', async () => {
    const writes: Write[] = [];
    for (const { table, column } of columns) {
      const { rows } = await store.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${table}"`,
      );
      expect(rows[0]!.n, table).toBeGreaterThan(0);
      for (const value of [`array_append("${column}", NULL)`, "'{NULL}'"]) {
        writes.push({
          label: `${table}.${column} = ${value}`,
          sql: `UPDATE "${table}" SET "${column}" = ${value}`,
        });
      }
    }
    expect(await acceptedWrites(store.pool, writes)).toEqual([]);
    await expect(
      store.pool.query("UPDATE tasks SET tags = ARRAY['a', NULL] WHERE id = $1", [ids.task]),
    ).rejects.toThrow(/tasks_tags_no_null_elements/);
    await expect(
      store.pool.query("UPDATE tasks SET tags = ARRAY[['a'], [NULL]] WHERE id = $1", [ids.task]),
    ).rejects.toThrow(/tasks_tags_no_null_elements/);
  });

  it('takes lists without NULL elements, empty ones and the text NULL included', async () => {
    await store.pool.query("UPDATE tasks SET tags = ARRAY['NULL', '-', ''] WHERE id = $1", [
      ids.task,
    ]);
    await store.pool.query("UPDATE tasks SET tags = '{}', assignee_ids = '{}' WHERE id = $1", [
      ids.task,
    ]);
  });

  it('fails on a store already holding a NULL element, naming the constraint, and changes nothing', async () => {
    const old = await storeBefore0007('0008_keys_lead_with_ids');
    try {
      await old.pool.query("UPDATE tasks SET tags = ARRAY['a', NULL] WHERE id = $1", [ids.task]);
      await expect(migrate(old.pool)).rejects.toThrow(/tasks_tags_no_null_elements/);
      const { rows } = await old.pool.query(
        "SELECT version FROM schema_migrations WHERE version LIKE '0009%'",
      );
      expect(rows).toEqual([]);
      const task = await old.pool.query<{ tags: unknown }>('SELECT tags FROM tasks WHERE id = $1', [
        ids.task,
      ]);
      expect(task.rows[0]!.tags).toEqual(['a', null]);
    } finally {
      await old.drop();
    }
  });
});

describe('arrays of one dimension from 1 (0011_array_dimensions)', () => {
  let store: Awaited<ReturnType<typeof storeBefore0007>>;
  const columns = [
    { table: 'api_tokens', column: 'scopes' },
    { table: 'tasks', column: 'assignee_ids' },
    { table: 'tasks', column: 'tags' },
  ];
  beforeAll(async () => {
    store = await storeBefore0007('0010_text_lengths');
    expect(await migrate(store.pool, { upTo: '0011_array_dimensions' })).toEqual([
      '0011_array_dimensions',
    ]);
  });
  afterAll(() => store.drop());

  it('gives every array column its CHECK', async () => {
    const { rows } = await store.pool.query<{ name: string }>(
      "SELECT conname AS name FROM pg_constraint WHERE contype = 'c' AND conname LIKE '%_one_dimension' ORDER BY 1",
    );
    expect(rows.map((r) => r.name)).toEqual(
      columns.map((c) => `${c.table}_${c.column}_one_dimension`),
    );
  });

  it('refuses a direct SQL write of two dimensions or of a list not numbered from 1', async () => {
    const writes: Write[] = columns.flatMap(({ table, column }) => {
      const element = `"${column}"[1]`;
      return [
        `ARRAY[ARRAY[${element}], ARRAY[${element}]]`,
        `array_fill(${element}, ARRAY[1], ARRAY[0])`,
      ].map((value) => ({
        label: `${table}.${column} = ${value}`,
        sql: `UPDATE "${table}" SET "${column}" = ${value} WHERE cardinality("${column}") > 0`,
      }));
    });
    expect(await acceptedWrites(store.pool, writes)).toEqual([]);
    await expect(
      store.pool.query("UPDATE tasks SET tags = '{{a,b},{c,d}}' WHERE id = $1", [ids.task]),
    ).rejects.toThrow(/tasks_tags_one_dimension/);
    await expect(
      store.pool.query("UPDATE tasks SET tags = '[0:1]={a,b}' WHERE id = $1", [ids.task]),
    ).rejects.toThrow(/tasks_tags_one_dimension/);
  });

  it('takes lists and empty ones', async () => {
    await store.pool.query("UPDATE tasks SET tags = ARRAY['a', 'b'] WHERE id = $1", [ids.task]);
    await store.pool.query("UPDATE tasks SET tags = '{}', assignee_ids = '{}' WHERE id = $1", [
      ids.task,
    ]);
  });

  it('fails on a store already holding a two-dimensional array, naming the constraint', async () => {
    const old = await storeBefore0007('0010_text_lengths');
    try {
      await old.pool.query("UPDATE tasks SET tags = '{{a},{b}}' WHERE id = $1", [ids.task]);
      await expect(migrate(old.pool)).rejects.toThrow(/tasks_tags_one_dimension/);
      const { rows } = await old.pool.query(
        "SELECT version FROM schema_migrations WHERE version LIKE '0011%'",
      );
      expect(rows).toEqual([]);
    } finally {
      await old.drop();
    }
  });
});
