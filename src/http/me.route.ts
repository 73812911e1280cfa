import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RouteContext } from '../api/route-context.ts';

/** `data` of GET /me (decisions 2). */
export const meRecord = z.object({
  orgId: z.uuid(),
  orgName: z.string(),
  userId: z.uuid(),
  role: z.enum(['MEMBER', 'MANAGER', 'ADMIN', 'OWNER']),
  plan: z.enum(['free', 'solo', 'studio', 'agency']),
  scopes: z.array(z.enum(['read', 'write'])),
  env: z.enum(['live', 'test']),
  tokenPrefix: z.string(),
});

/** GET /me: who the token is (decisions 2). Answered from the operational store, not the read model. */
export function registerMeRoute(app: FastifyInstance, _context: RouteContext): void {
  app.get('/me', async (request) => {
    const c = request.caller;
    return {
      data: {
        orgId: c.workspaceId,
        orgName: c.workspaceName,
        userId: c.userId,
        role: c.role,
        plan: c.plan,
        scopes: c.scopes,
        env: c.env,
        tokenPrefix: c.tokenPrefix,
      },
    };
  });
}
