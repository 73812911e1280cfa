import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database, TokenEnv } from '../store/schema.ts';
import { parseToken, secretMatches } from '../tokens/token-format.ts';
import type { TokenIdentityCache } from '../tokens/token-identity-cache.ts';
import { findTokenIdentity, type TokenUseRecorder } from '../tokens/token.repository.ts';
import type { Caller } from '../api/caller.ts';
import { forbiddenPlan, unauthenticated } from '../api/errors.ts';

const API_PLANS = new Set(['studio', 'agency']);

/**
 * Resolves the bearer token to a caller, in the order of docs/contract.md, "Order of checks": a
 * missing, malformed, unknown, revoked or other-environment token is 401 (all alike, so a prober
 * learns nothing); then a workspace whose plan has no API access is 402. Role, scope and feature
 * checks belong to each route (`requireAccess`). With `identities`, a token seen before is
 * answered from memory, kept current by PostgreSQL's notifications (TokenIdentityCache).
 */
export async function authenticate(
  db: Kysely<Database>,
  serverEnv: TokenEnv,
  request: FastifyRequest,
  uses: TokenUseRecorder,
  identities?: TokenIdentityCache,
): Promise<Caller> {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer ([^\s]+)$/.exec(header);
  const parsed = match ? parseToken(match[1]!) : undefined;
  if (!parsed || parsed.env !== serverEnv) throw unauthenticated();
  const lookup = () => findTokenIdentity(db, parsed.prefix);
  const identity = identities ? await identities.find(parsed.prefix, lookup) : await lookup();
  // The secret is compared even for a revoked token, so timing does not tell the two apart.
  const matches = identity !== undefined && secretMatches(parsed.secret, identity.secretSha256);
  if (!identity || !matches || identity.revokedAt !== null || identity.env !== serverEnv)
    throw unauthenticated();
  if (!API_PLANS.has(identity.plan)) throw forbiddenPlan('studio', 'api');
  uses
    .record(identity.prefix)
    .catch((error: unknown) => request.log.warn({ err: error }, 'could not record token use'));
  const { secretSha256: _secret, revokedAt: _revoked, prefix, ...caller } = identity;
  return { ...caller, tokenPrefix: prefix };
}
