import type { Kysely } from 'kysely';
import type { Database, Plan, Role, Scope, TokenEnv } from '../store/schema.ts';
import { hashSecret, mintToken } from './token-format.ts';

export interface NewToken {
  workspaceId: string;
  userId: string;
  scopes: Scope[];
  env: TokenEnv;
}

/** Mints a token for a member and stores its prefix and the hash of its secret. The full token is returned once. */
export async function createToken(
  db: Kysely<Database>,
  input: NewToken,
): Promise<{ token: string; prefix: string }> {
  const member = await db
    .selectFrom('members')
    .select('role')
    .where('workspace_id', '=', input.workspaceId)
    .where('user_id', '=', input.userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!member)
    throw new Error(`User ${input.userId} is not a member of workspace ${input.workspaceId}`);
  const minted = mintToken(input.env);
  await db
    .insertInto('api_tokens')
    .values({
      prefix: minted.prefix,
      workspace_id: input.workspaceId,
      user_id: input.userId,
      env: input.env,
      secret_sha256: hashSecret(minted.secret),
      scopes: input.scopes,
    })
    .execute();
  return { token: minted.token, prefix: minted.prefix };
}

export interface TokenListing {
  prefix: string;
  env: TokenEnv;
  workspaceId: string;
  userId: string;
  owner: string;
  role: Role;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export async function listTokens(
  db: Kysely<Database>,
  workspaceId?: string,
): Promise<TokenListing[]> {
  let query = db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', (j) =>
      j.onRef('u.workspace_id', '=', 't.workspace_id').onRef('u.id', '=', 't.user_id'),
    )
    .innerJoin('members as m', (j) =>
      j.onRef('m.workspace_id', '=', 't.workspace_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .select([
      't.prefix',
      't.env',
      't.workspace_id as workspaceId',
      't.user_id as userId',
      'u.name as owner',
      'm.role',
      't.scopes',
      't.created_at as createdAt',
      't.last_used_at as lastUsedAt',
      't.revoked_at as revokedAt',
    ])
    .orderBy('t.workspace_id')
    .orderBy('t.created_at')
    .orderBy('t.prefix');
  if (workspaceId) query = query.where('t.workspace_id', '=', workspaceId);
  return query.execute();
}

/** Revokes a token by its prefix; false when no live token has it. */
export async function revokeToken(db: Kysely<Database>, prefix: string): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date() })
    .where('prefix', '=', prefix)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface TokenIdentity {
  prefix: string;
  env: TokenEnv;
  secretSha256: Buffer;
  revokedAt: Date | null;
  workspaceId: string;
  workspaceName: string;
  plan: Plan;
  timezone: string;
  baseCurrency: string;
  userId: string;
  role: Role;
  scopes: Scope[];
}

/** What authentication needs to know about a token, from the operational store (revocation is immediate). */
export async function findTokenIdentity(
  db: Kysely<Database>,
  prefix: string,
): Promise<TokenIdentity | undefined> {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('workspaces as w', 'w.id', 't.workspace_id')
    .innerJoin('members as m', (j) =>
      j.onRef('m.workspace_id', '=', 't.workspace_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .select([
      't.prefix',
      't.env',
      't.secret_sha256 as secretSha256',
      't.revoked_at as revokedAt',
      'w.id as workspaceId',
      'w.name as workspaceName',
      'w.plan',
      'w.timezone',
      'w.base_currency as baseCurrency',
      't.user_id as userId',
      'm.role',
      't.scopes',
    ])
    .where('t.prefix', '=', prefix)
    .where('w.deleted_at', 'is', null)
    .where('m.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** How often a token's last use is written: reads should not each turn into a write. */
export const TOKEN_USE_INTERVAL_MS = 60_000;

/**
 * Records a token's use in `last_used_at`, at most once a minute per token. The process
 * remembers when it last wrote each token, so most requests cost no query at all; the
 * condition in the UPDATE keeps several servers sharing the store to one write a minute too.
 */
export class TokenUseRecorder {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when the write (if one was due) has finished. */
  async record(prefix: string): Promise<void> {
    const now = this.now();
    const last = this.written.get(prefix);
    if (last !== undefined && now - last < TOKEN_USE_INTERVAL_MS) return;
    // Bounded: a process sees few tokens, but a flood of distinct valid ones must not grow it.
    if (this.written.size >= 10_000) this.written.clear();
    this.written.set(prefix, now);
    await this.db
      .updateTable('api_tokens')
      .set({ last_used_at: new Date(now) })
      .where('prefix', '=', prefix)
      .where((eb) =>
        eb.or([
          eb('last_used_at', 'is', null),
          eb('last_used_at', '<', new Date(now - TOKEN_USE_INTERVAL_MS)),
        ]),
      )
      .execute();
  }
}
