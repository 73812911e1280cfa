import type { FastifyInstance } from 'fastify';
import { requireAccess } from '../access.ts';
import type { RouteContext } from '../route-context.ts';
import { answerList } from '../list/list-endpoint.ts';
import { parseQuery } from '../list/list-query.ts';
import { projectList, projectListQuery } from './project.list.ts';

/** /projects: any role; Members see the projects they were granted, without rates. */
export function registerProjectRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get('/projects', async (request) => {
    requireAccess(request.caller, { scope: 'read' });
    const query = parseQuery(projectListQuery, request.query);
    return context.read((connection) =>
      answerList(connection, projectList, query, request.caller, context),
    );
  });
}
