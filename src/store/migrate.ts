import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';

const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../sql/postgres');
// Any constant: serialises concurrent migrators of one database.
const MIGRATION_LOCK = 7_402_113;

/**
 * Applies the versioned migrations of sql/postgres/ that the database has not seen, each in
 * its own transaction, under an advisory lock. Safe to run on every start. A migration file
 * changed after it was applied is refused rather than silently skipped. `upTo` stops after
 * that version, so a test can run a later migration on a store holding data.
 */
export async function migrate(pool: pg.Pool, options: { upTo?: string } = {}): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR))
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .filter((f) => options.upTo === undefined || f.replace(/\.sql$/, '') <= options.upTo)
    .sort();
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Map(
      (
        await client.query<{ version: string; sha256: string }>(
          'SELECT version, sha256 FROM schema_migrations',
        )
      ).rows.map((r) => [r.version, r.sha256]),
    );
    for (const file of files) {
      const sql = await readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
      const sha256 = createHash('sha256').update(sql).digest('hex');
      const version = file.replace(/\.sql$/, '');
      const known = done.get(version);
      if (known !== undefined) {
        if (known !== sha256) throw new Error(`Migration ${file} was changed after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version, sha256) VALUES ($1, $2)', [
          version,
          sha256,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(version);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}
