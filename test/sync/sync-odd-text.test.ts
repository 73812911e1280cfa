import type pg from 'pg';
import { describe, expect } from 'vitest';
import { ids } from '../support/small-snapshot.ts';
import { syncEveryWay } from '../support/sync-every-way.ts';

/**
 * Text that breaks CSV readers, after more plain rows than DuckDB's sniffer samples (20,480):
 * a reader left to guess the dialect from the plain rows finds no quote character, and the
 * first odd row splits. Each set goes in with one statement per table.
 */
const ODD = [
  'Foo, Bar & Baz',
  'Hotel, two nights',
  'say "hi"',
  '"',
  '""',
  'a,b,"c",\n"d"',
  'line\nbreak',
  'carriage\rreturn',
  'windows\r\nline',
  '\r',
  '\n',
  'ends with a return\r',
  'back\\slash',
  '\\',
  '\\N',
  '\\"',
  'tab\there',
  '\t',
  'NULL',
  'null',
  '',
  ' leading and trailing ',
  '   ',
  "it's",
  '{a,"b"}',
  '[1, "json", null]',
  '𝄞 clef',
  '😀🎉',
  'ünïcödé ß',
];
const PLAIN_ROWS = 30_000;

/** Plain rows, then rows with each odd text in every text column kind, tagged by `set`. */
async function insertSet(pool: pg.Pool, set: string, plainRows = PLAIN_ROWS): Promise<void> {
  const values = { ws: ids.workspace, project: ids.project, owner: ids.owner };
  await pool.query(
    `INSERT INTO clients (id, workspace_id, name, notes, billing_city)
     SELECT md5($2 || 'client' || i)::uuid, $1, 'Client ' || $2 || ' ' || i, 'plain note ' || i, 'Berlin'
     FROM generate_series(1, ${plainRows}) AS i`,
    [values.ws, set],
  );
  await pool.query(
    `INSERT INTO clients (id, workspace_id, name, contact_name, email, phone, website, notes,
       billing_address, billing_line1, billing_city, default_payment_terms)
     SELECT md5($2 || 'odd client' || n)::uuid, $1, CASE WHEN v = '' THEN 'Ω' ELSE v END, v, NULL, '', v,
       v || v, v, 'NULL', CASE WHEN n % 2 = 0 THEN NULL ELSE '' END, v
     FROM unnest($3::text[]) WITH ORDINALITY AS o(v, n)`,
    [values.ws, set, ODD],
  );
  await pool.query(
    `INSERT INTO tasks (id, workspace_id, project_id, name, description, tags)
     SELECT md5($2 || 'task' || i)::uuid, $1, $3, 'Task ' || i, NULL, ARRAY['plain', 'tag' || i]
     FROM generate_series(1, ${plainRows}) AS i`,
    [values.ws, set, values.project],
  );
  await pool.query(
    `INSERT INTO tasks (id, workspace_id, project_id, name, description, tags)
     SELECT md5($2 || 'odd task' || n)::uuid, $1::uuid, $3::uuid, CASE WHEN v = '' THEN 'Ω' ELSE v END, v,
       ARRAY[v, 'plain', v || ',' || v]
     FROM unnest($4::text[]) WITH ORDINALITY AS o(v, n)
     UNION ALL
     SELECT md5($2 || 'all odd task')::uuid, $1, $3, 'All of them', '', $4::text[]`,
    [values.ws, set, values.project, ODD],
  );
  await pool.query(
    `INSERT INTO time_entries (id, workspace_id, user_id, project_id, entry_date, duration_seconds, note)
     SELECT md5($2 || 'entry' || i)::uuid, $1::uuid, $3::uuid, $4::uuid, DATE '2026-01-01' + (i % 300), 60, 'worked ' || i
     FROM generate_series(1, ${plainRows}) AS i
     UNION ALL
     SELECT md5($2 || 'odd entry' || n)::uuid, $1, $3, $4, DATE '2026-02-01', 90, v
     FROM unnest($5::text[]) WITH ORDINALITY AS o(v, n)`,
    [values.ws, set, values.owner, values.project, ODD],
  );
  // JSON text with every odd string in it, escaped as jsonb writes it.
  await pool.query(
    `UPDATE team_bills SET payee_snapshot = jsonb_build_object('set', $2::text, 'names', to_jsonb($3::text[]))
     WHERE id = $1`,
    [ids.bill, set, ODD],
  );
}

/** Turns plain rows of `set` into odd ones (updates stream the new row beside the old). */
async function updateSet(pool: pg.Pool, set: string): Promise<void> {
  await pool.query(
    `UPDATE clients c SET notes = o.v, contact_name = o.v, billing_region = ''
     FROM unnest($2::text[]) WITH ORDINALITY AS o(v, n)
     WHERE c.id = md5($1 || 'client' || o.n)::uuid`,
    [set, ODD],
  );
  await pool.query(
    `UPDATE tasks t SET tags = ARRAY[o.v, o.v], description = o.v
     FROM unnest($2::text[]) WITH ORDINALITY AS o(v, n)
     WHERE t.id = md5($1 || 'task' || o.n)::uuid`,
    [set, ODD],
  );
}

describe('text that breaks CSV readers, past the rows a reader samples', () => {
  syncEveryWay({
    seed: (pool) => insertSet(pool, 'first'),
    change: async (pool, mode) => {
      if (mode === 'replication') {
        await insertSet(pool, 'streamed');
        await updateSet(pool, 'first');
      } else {
        // The change files are read like the stream's, tested past 30,000 plain rows.
        await insertSet(pool, 'logged', 1_000);
        await updateSet(pool, 'streamed');
      }
    },
    expectStore: (store) => expect(store.clients!.length).toBeGreaterThan(PLAIN_ROWS),
  });
});
