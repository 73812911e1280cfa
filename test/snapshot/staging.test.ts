import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGED_COLUMNS, stageRecord } from '../../src/snapshot/import-rows.ts';
import { Staging } from '../../src/snapshot/staging.ts';
import { createTestDatabase } from '../support/databases.ts';

const WORKSPACE = '152d1f25-92b4-42c3-b7fa-73b380973f96';
const NOW = '2026-11-15T09:30:00.000Z';

/** A uuid made from a number, so each row can be told apart. */
const uuidOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/**
 * The staging tables as the importer fills them: rows of several tables interleaved, each
 * table's buffer sent as a COPY when full, one COPY at a time. A small chunk size makes a
 * few thousand rows many COPYs, with buffers filling up while another is in flight.
 */
describe('staging', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  it('sends every row of tables that fill up together, none twice', async () => {
    await client.query('BEGIN');
    try {
      const staging = await Staging.create(client as pg.PoolClient, STAGED_COLUMNS, {
        chunkBytes: 2048,
      });
      const reject = (message: string) => {
        throw new Error(message);
      };
      const users = 3000;
      for (let n = 0; n < users; n++) {
        const name = `User, "${n}" \\ 😀`;
        stageRecord(staging, 'user', { id: uuidOf(n), name, email: null }, WORKSPACE, NOW, reject);
        // Another table fills at a third of the pace.
        if (n % 3 === 0) {
          const member = { userId: uuidOf(n), role: 'MEMBER' };
          stageRecord(staging, 'member', member, WORKSPACE, NOW, reject);
        }
        if (staging.full) await staging.send();
      }
      await staging.send(true);
      expect(staging.rows('users')).toBe(users);
      expect(staging.rows('members')).toBe(users / 3);
      const { rows } = await client.query<{ n: string; distinct: string; names: string }>(
        `SELECT count(*) AS n, count(DISTINCT id) AS distinct,
                count(*) FILTER (WHERE name = 'User, "' || ('x' || right(id::text, 12))::bit(48)::bigint || '" \\ 😀') AS names
         FROM stage_users`,
      );
      expect(rows[0]).toEqual({ n: String(users), distinct: String(users), names: String(users) });
      const members = await client.query<{ n: string }>(
        'SELECT count(DISTINCT user_id) AS n FROM stage_members',
      );
      expect(members.rows[0]!.n).toBe(String(users / 3));
    } finally {
      await client.query('ROLLBACK');
    }
  });
});
