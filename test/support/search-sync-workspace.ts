import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';

// The workspace test/search/search-sync.test.ts syncs, the random changes it writes to every
// searched table, and the index read back whole to compare with a rebuild.

export const W = 'd0000000-0000-4000-8000-000000000000';
export const id = (kind: number, n: number) =>
  `d${kind}000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const user = (n: number) => id(2, n);
export const client = (n: number) => id(3, n);
export const project = (n: number) => id(4, n);
export const invoice = (n: number) => id(8, n);
export const line = (n: number) => id(9, n);

/** Three users, two clients with a project and an invoice of one line each, one time entry. */
export const searchSyncSnapshot = {
  version: 1,
  workspace: { id: W, name: 'Sync Studio', plan: 'agency', baseCurrency: 'EUR', timezone: 'UTC' },
  users: [
    { id: user(1), name: 'Ada Lovelace' },
    { id: user(2), name: 'Grace Hopper' },
    { id: user(3), name: 'Linus Torvalds' },
  ],
  members: [1, 2, 3].map((n) => ({ userId: user(n), role: n === 1 ? 'OWNER' : 'MEMBER' })),
  clients: [
    { id: client(1), name: 'Globex Corporation' },
    { id: client(2), name: 'Initech' },
  ],
  projects: [
    { id: project(1), clientId: client(1), name: 'Website relaunch', memberIds: [user(1)] },
    { id: project(2), clientId: client(2), name: 'Brand refresh', memberIds: [user(2)] },
  ],
  timeEntries: [
    {
      id: id(6, 1),
      userId: user(1),
      projectId: project(1),
      entryDate: '2026-10-01',
      durationSeconds: 3600,
    },
  ],
  invoices: [1, 2].map((n) => ({
    id: invoice(n),
    clientId: client(n),
    number: `INV-000${n}`,
    status: 'SENT',
    paymentStatus: 'unpaid',
    currency: 'EUR',
    subtotal: '10.00',
    total: '10.00',
    lines: [
      {
        id: line(n),
        kind: 'OTHER',
        description: n === 1 ? 'Development sprint' : 'Design workshop',
        amount: '10.00',
      },
    ],
  })),
};

/**
 * The search index as what it says (word ids aside, which a rebuild numbers afresh): every
 * posting, every vocabulary row with its derived columns and count, every document, and the
 * client names kept on project and invoice rows, with how many differ from their client's.
 */
export async function indexContent(duck: DuckDBConnection) {
  const rows = async (sql: string) =>
    (await duck.runAndReadAll(sql)).getRows().map((row) => row.map(String).join(' | '));
  return {
    postings: await rows(
      `SELECT v.entity, v.workspace_id, p.record_id, v.word, v.primary_field, p.created_at, p.live
       FROM search_postings p JOIN search_vocabulary v USING (word_id) ORDER BY ALL`,
    ),
    vocabulary: await rows(
      `SELECT entity, workspace_id, word, primary_field, word_length, ascii_form, letters, head,
              tail, gram2, gram3, gram4, gram5, records
       FROM search_vocabulary ORDER BY ALL`,
    ),
    documents: await rows(
      `SELECT d.entity, d.workspace_id, d.record_id, d.created_at, d.live,
              list(v.word || ':' || v.primary_field ORDER BY v.word, v.primary_field)
       FROM search_documents d, unnest(d.word_ids) AS w(word_id) JOIN search_vocabulary v ON v.word_id = w.word_id
       GROUP BY ALL ORDER BY ALL`,
    ),
    // The client name kept on project and invoice rows (src/search/client-names.ts).
    clientNames: await rows(
      `SELECT 'project', id, client_name_lower FROM projects
       UNION ALL SELECT 'invoice', id, client_name_lower FROM invoices ORDER BY ALL`,
    ),
    clientNamesOff: await rows(
      `SELECT count(*) FROM (
         SELECT r.client_name_lower, c.name FROM projects r LEFT JOIN clients c ON c.id = r.client_id
         UNION ALL SELECT r.client_name_lower, c.name FROM invoices r LEFT JOIN clients c ON c.id = r.client_id
       ) WHERE client_name_lower IS DISTINCT FROM lower(name)`,
    ),
    duplicates: await rows(
      `SELECT (SELECT count(*) - count(DISTINCT word_id) FROM search_vocabulary),
              (SELECT count(*) - count(DISTINCT (entity, workspace_id, word, primary_field)) FROM search_vocabulary),
              (SELECT count(*) - count(DISTINCT (word_id, record_id)) FROM search_postings),
              (SELECT count(*) FROM search_touched)`,
    ),
  };
}

const WORDS = ['Alpha', 'Beta', 'Gamma', 'José', 'Müller', 'ﬁne', 'Zeta9', 'Globex', 'Smith'];
const words = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 })
  .map((w) => w.join(' '));
type Change = [sql: string, params: unknown[]];

/**
 * Random changes to every searched table: [SQL, parameters], each valid whatever ran before it
 * (rows are upserted, and deleted only when nothing references them).
 */
export const searchedTableChange = fc.oneof<fc.Arbitrary<Change>[]>(
  fc.tuple(fc.integer({ min: 1, max: 3 }), words).map(([c, name]) => [
    `INSERT INTO clients (id, workspace_id, name) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name`,
    [client(c), W, name],
  ]),
  fc
    .tuple(fc.integer({ min: 1, max: 3 }), words)
    .map(([c, notes]) => ['UPDATE clients SET notes = $2 WHERE id = $1', [client(c), notes]]),
  fc.integer({ min: 1, max: 3 }).map((c) => [
    `DELETE FROM clients c WHERE id = $1
     AND NOT EXISTS (SELECT 1 FROM projects WHERE client_id = c.id)
     AND NOT EXISTS (SELECT 1 FROM invoices WHERE client_id = c.id)`,
    [client(c)],
  ]),
  fc
    .tuple(fc.integer({ min: 1, max: 3 }), words)
    .map(([u, name]) => [
      'UPDATE users SET name = $3 WHERE workspace_id = $1 AND id = $2',
      [W, user(u), name],
    ]),
  fc
    .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), words)
    .map(([p, c, name]) => [
      `INSERT INTO projects (id, workspace_id, client_id, name)
       SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM clients WHERE id = $3)
       ON CONFLICT (id) DO UPDATE SET client_id = excluded.client_id, name = excluded.name`,
      [project(p), W, client(c), name],
    ]),
  fc.integer({ min: 1, max: 3 }).map((p) => [
    `DELETE FROM projects p WHERE id = $1
     AND NOT EXISTS (SELECT 1 FROM time_entries WHERE project_id = p.id)`,
    [project(p)],
  ]),
  fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })).map(([p, u]) => [
    `INSERT INTO project_members (workspace_id, project_id, user_id)
     SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $2) ON CONFLICT DO NOTHING`,
    [W, project(p), user(u)],
  ]),
  fc
    .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }))
    .map(([p, u]) => [
      'DELETE FROM project_members WHERE project_id = $1 AND user_id = $2',
      [project(p), user(u)],
    ]),
  fc
    .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), words)
    .map(([i, c, notes]) => [
      `INSERT INTO invoices (id, workspace_id, client_id, number, status, payment_status, currency,
         subtotal, total, notes)
       SELECT $1, $2, $3, $4, 'SENT', 'unpaid', 'EUR', 10, 10, $5
       WHERE EXISTS (SELECT 1 FROM clients WHERE id = $3)
       ON CONFLICT (id) DO UPDATE SET client_id = excluded.client_id, notes = excluded.notes`,
      [invoice(i), W, client(c), `INV-${i}`, notes],
    ]),
  fc.integer({ min: 1, max: 3 }).map((i) => ['DELETE FROM invoices WHERE id = $1', [invoice(i)]]),
  fc
    .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }), words)
    .map(([l, i, description]) => [
      `INSERT INTO invoice_lines (id, workspace_id, invoice_id, position, kind, description, amount)
       SELECT $1, $2, $3, 1, 'OTHER', $4, 1 WHERE EXISTS (SELECT 1 FROM invoices WHERE id = $3)
       ON CONFLICT (id) DO UPDATE SET invoice_id = excluded.invoice_id, description = excluded.description`,
      [line(l), W, invoice(i), description],
    ]),
  fc.integer({ min: 1, max: 5 }).map((l) => ['DELETE FROM invoice_lines WHERE id = $1', [line(l)]]),
  // Soft deletes and restores, and creation times moved: the postings carry both.
  fc
    .tuple(fc.constantFrom('clients', 'projects', 'invoices'), fc.integer({ min: 1, max: 3 }))
    .map(([table, n]) => [
      `UPDATE ${table} SET deleted_at = CASE WHEN deleted_at IS NULL THEN now() END WHERE id = $1`,
      [{ clients: client, projects: project, invoices: invoice }[table](n)],
    ]),
  fc
    .tuple(fc.constantFrom('clients', 'projects', 'invoices'), fc.integer({ min: 1, max: 3 }))
    .map(([table, n]) => [
      `UPDATE ${table} SET created_at = created_at + INTERVAL '1 day' WHERE id = $1`,
      [{ clients: client, projects: project, invoices: invoice }[table](n)],
    ]),
);
