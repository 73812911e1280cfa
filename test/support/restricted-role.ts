import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A login role that may read and write the test database but not replicate, like the
 * application role of a managed PostgreSQL: the sync must fall back to the change log.
 * Returns a connection string for it.
 */
export async function restrictedRoleUrl(databaseUrl: string): Promise<string> {
  const name = `app_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${name} LOGIN PASSWORD '${password}' NOSUPERUSER NOREPLICATION`);
    await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${name}`);
    await admin.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.username = name;
  url.password = password;
  return url.toString();
}
