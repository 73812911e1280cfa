import type { Role } from '../store/schema.ts';
import { hasRoleAtLeast, type Caller } from './caller.ts';
import { forbiddenPlan, forbiddenScope } from './errors.ts';

export interface AccessRule {
  /** Roles allowed (any role when absent). */
  roles?: Role[];
  /** `read` for GET, `write` for changes (docs/contract.md, "Tokens"). */
  scope?: 'read' | 'write';
  /**
   * A plan feature: checked after role and scope, as docs/contract.md, "Order of checks" orders it.
   */
  feature?: { plan: 'agency'; name: string };
}

/** 403 for role or scope, then 402 for a plan feature. */
export function requireAccess(caller: Caller, rule: AccessRule): void {
  if (rule.roles && !rule.roles.includes(caller.role)) throw forbiddenScope();
  if (rule.scope && !caller.scopes.includes(rule.scope)) throw forbiddenScope();
  if (rule.feature && caller.plan !== rule.feature.plan)
    throw forbiddenPlan(rule.feature.plan, rule.feature.name);
}

export const OWNER_ADMIN: Role[] = ['OWNER', 'ADMIN'];

export function canManagePayouts(caller: Caller): boolean {
  return hasRoleAtLeast(caller, 'ADMIN') && caller.scopes.includes('write');
}
