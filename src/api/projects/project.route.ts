import { answerList } from '../list/list-endpoint.ts';
import { LIST_ERRORS, type RoutePlugin, readResponses } from '../route-schema.ts';
import { listResponse } from '../schema-parts.ts';
import { projectList, projectListQuery } from './project.list.ts';
import { projectRecord } from './project.record.ts';

/** /projects: any role; Members see the projects they were granted, without rates. */
export const projectRoutes: RoutePlugin = async (app, { context }) => {
  app.get(
    '/projects',
    {
      config: { access: { scope: 'read' } },
      schema: {
        summary: 'List projects (Members: the projects granted to them, without rate fields)',
        description: 'Who may call: any role; read scope.',
        querystring: projectListQuery,
        response: readResponses({ 200: listResponse(projectRecord) }, LIST_ERRORS),
      },
    },
    async (request) =>
      context.read((connection) =>
        answerList(connection, projectList, request.query, request.caller, context),
      ),
  );
};
