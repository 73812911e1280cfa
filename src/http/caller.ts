import type { Plan, Role, Scope, TokenEnv } from '../store/schema.ts';

/** Who is calling: resolved from the bearer token before any route runs. */
export interface Caller {
  workspaceId: string;
  workspaceName: string;
  plan: Plan;
  timezone: string;
  userId: string;
  role: Role;
  scopes: Scope[];
  env: TokenEnv;
  tokenPrefix: string;
}

const RANK: Record<Role, number> = { MEMBER: 0, MANAGER: 1, ADMIN: 2, OWNER: 3 };

export function hasRoleAtLeast(caller: Caller, role: Role): boolean {
  return RANK[caller.role] >= RANK[role];
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}
