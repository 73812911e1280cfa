import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The shared secret called `name`, made at first use: 32 random bytes stored in PostgreSQL,
 * so every server of the store and every restart signs with the same key.
 */
export async function loadServerSecret(db: Kysely<Database>, name: string): Promise<Buffer> {
  await sql`INSERT INTO server_secrets (name, secret) VALUES (${name}, ${randomBytes(32)})
            ON CONFLICT (name) DO NOTHING`.execute(db);
  const { rows } = await sql<{
    secret: Buffer;
  }>`SELECT secret FROM server_secrets WHERE name = ${name}`.execute(db);
  const secret = rows[0]?.secret;
  if (!secret) throw new Error(`The server secret ${name} could not be stored`);
  return secret;
}
