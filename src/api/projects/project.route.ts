import { SEARCHED_TABLES } from '../../search/search-index.ts';
import { answerList } from '../list/list-endpoint.ts';
import { LIST_ERRORS, type AnswerReads, type RoutePlugin, readResponses } from '../route-schema.ts';
import { listResponse } from '../schema-parts.ts';
import { projectList, projectListQuery } from './project.list.ts';
import { projectRecord } from './project.record.ts';
/**
 * What a page of projects reads (config.answers): its rows, their clients, the workspace, a
 * Member's grants; a search, the index.
 */
const PROJECT_READS: AnswerReads = {
  reads: ['clients', 'project_members', 'projects', 'workspaces'],
  withParameter: { search: SEARCHED_TABLES },
};

/** /projects: any role; Members see the projects they were granted, without rates. */
export const projectRoutes: RoutePlugin = async (app, { context }) => {
  app.get(
    '/projects',
    {
      config: { access: { scope: 'read' }, answers: PROJECT_READS },
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
