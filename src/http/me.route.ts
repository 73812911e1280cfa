import { z } from 'zod';
import { responses, type RoutePlugin } from '../api/route-schema.ts';
import { singleResponse } from '../api/schema-parts.ts';

/** `data` of GET /me (docs/contract.md, "Tokens"). */
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

/**
 * GET /me: who the token is (docs/contract.md, "Tokens"). Answered from the operational store, not
 * the read model.
 */
export const meRoutes: RoutePlugin = async (app) => {
  app.get(
    '/me',
    {
      // Any valid token, whatever its role and scopes; answered from the store, so it waits
      // for no data position.
      config: { access: {}, fromStore: true },
      schema: {
        summary: 'Verify the token: workspace, role, plan and scopes',
        description: 'Who may call: any valid token.',
        response: responses({ 200: singleResponse(meRecord) }, {}),
      },
    },
    async (request) => {
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
    },
  );
};
