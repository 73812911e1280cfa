import type { DuckDBConnection } from '@duckdb/node-api';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AccessRule } from '../../api/access.ts';
import type { Caller } from '../../api/caller.ts';
import { notFound } from '../../api/errors.ts';
import { answerList, type ListEndpoint, type ListParams } from '../../api/list/list-endpoint.ts';
import type { RouteContext } from '../../api/route-context.ts';
import {
  idParams,
  readInHandler,
  readResponses,
  readStrictQuery,
  strictQuerySchema,
  type AnswerReads,
  type ErrorsByStatus,
  type RoutePlugin,
} from '../../api/route-schema.ts';
import { listResponse, singleResponse } from '../../api/schema-parts.ts';

/** The app a route plugin registers its routes on. */
type RouteApp = Parameters<RoutePlugin>[0];

const LIST_ERRORS: ErrorsByStatus = {
  422: ['validation_failed', 'invalid_query', 'invalid_cursor'],
  503: ['read_model_unavailable'],
};
const RECORD_ERRORS: ErrorsByStatus = {
  404: ['not_found'],
  422: ['invalid_query'],
  503: ['read_model_unavailable'],
};

/**
 * A record route takes no query parameters: any is 422 invalid_query, read once the record is
 * found (404 before 422).
 */
const NO_PARAMETERS = strictQuerySchema(z.object({}));
const RECORD_QUERY = readInHandler(NO_PARAMETERS);

/** A record read's answer: its record found (else 404), then its query read (else 422). */
async function answerRecord<T>(
  request: FastifyRequest,
  found: Promise<T | undefined>,
): Promise<{ data: T }> {
  const record = await found;
  if (!record) throw notFound();
  readStrictQuery(NO_PARAMETERS, request.query);
  return { data: record };
}

/** A read-only list of the read model and, optionally, the route of one of its records. */
export interface ListRoutes<S extends z.ZodObject> {
  /** The list's path; its record's is `<path>/:id`. */
  path: string;
  /** Who may call both routes, and its words in their descriptions. */
  access: AccessRule;
  who: string;
  /** What a page or a record reads (config.answers). */
  answers: AnswerReads;
  /** The schema of one record, in a page and alone. */
  record: z.ZodType;
  list: {
    summary: string;
    /** Its strict query (an unknown or repeated parameter is 422 invalid_query). */
    query: S;
    endpoint: ListEndpoint<z.output<S> & ListParams>;
    /** A check of the list request before its input is validated (config.beforeInput). */
    beforeInput?: (request: FastifyRequest) => void;
  };
  /** GET `<path>/:id`: a record found by its id (404 when it is not). */
  one?: {
    summary: string;
    find(connection: DuckDBConnection, caller: Caller, id: string): Promise<unknown>;
  };
}

/**
 * Registers GET `path`, a page of the list with its cursor, and, with `one`, GET `path/:id`,
 * the record it names (404), whose query must be empty (422, after the 404).
 */
export function listRoutes<S extends z.ZodObject>(
  app: RouteApp,
  context: RouteContext,
  routes: ListRoutes<S>,
): void {
  const { path, access, who, answers, record, list, one } = routes;
  const query = strictQuerySchema(list.query);
  app.get(
    path,
    {
      config: list.beforeInput
        ? { access, beforeInput: list.beforeInput, answers }
        : { access, answers },
      schema: {
        summary: list.summary,
        description: who,
        querystring: query,
        response: readResponses({ 200: listResponse(record) }, LIST_ERRORS),
      },
    },
    async (request) =>
      context.read((c) =>
        answerList(c, list.endpoint, request.query as z.output<S>, request.caller, context),
      ),
  );
  if (!one) return;
  app.get(
    `${path}/:id`,
    {
      config: { access, answers },
      schema: {
        summary: one.summary,
        description: who,
        params: idParams,
        querystring: RECORD_QUERY,
        response: readResponses({ 200: singleResponse(record) }, RECORD_ERRORS),
      },
    },
    async (request) =>
      answerRecord(
        request,
        context.read((c) => one.find(c, request.caller, request.params.id)),
      ),
  );
}
