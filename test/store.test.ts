import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createPool } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { createTestDatabase } from './support/databases.ts';

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
