import type { Role } from '../store/schema.ts';
import type { TokenIdentity } from '../tokens/token.repository.ts';

/** Who is calling: the token's identity, resolved before any route runs, without its secret. */
export type Caller = Omit<TokenIdentity, 'secretSha256' | 'revokedAt' | 'prefix'> & {
  tokenPrefix: string;
};

const RANK: Record<Role, number> = { MEMBER: 0, MANAGER: 1, ADMIN: 2, OWNER: 3 };

export function hasRoleAtLeast(caller: Caller, role: Role): boolean {
  return RANK[caller.role] >= RANK[role];
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}
