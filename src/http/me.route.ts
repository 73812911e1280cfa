import type { FastifyInstance } from 'fastify';
import type { RouteContext } from './app.ts';

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
