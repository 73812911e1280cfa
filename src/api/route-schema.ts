import type { FastifyPluginAsync, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAccess, type AccessRule } from './access.ts';
import { notFound, type ErrorCode } from './errors.ts';
import { parseQuery } from './list/list-query.ts';
import type { RouteContext } from './route-context.ts';
import { strictQuery } from './strict-query.ts';
import { parseBody } from './write-body.ts';

// What a route declares besides its handler: who may call it (`config.access`), its params,
// query, body and a response per status (`schema`), from which the app validates the input
// and builds the OpenAPI document.

declare module 'fastify' {
  interface FastifySchema {
    /** Headers a route's responses carry, by status, as JSON schemas (for the document). */
    responseHeaders?: Record<number, Record<string, Record<string, unknown>>>;
  }
  interface FastifyContextConfig {
    /**
     * Role, scope and plan feature the route needs. The app checks it before the input is
     * validated, so that 403 and 402 come before 422 (docs/contract.md, "Order of checks"). Every
     * API route has one.
     */
    access?: AccessRule;
    /**
     * A check of the raw request that also comes before validation: a plan rule that depends
     * on a parameter (drafts need Agency), or the record a path names when its plan rules
     * depend on it (an export's report).
     */
    beforeInput?: (request: FastifyRequest) => void;
    /**
     * A GET answered from the operational store, not the read model (GET /me): it does not
     * wait for a data position (src/http/data-position.ts).
     */
    fromStore?: true;
    /**
     * A GET of the read model whose 200 answers are kept and served again until one of the
     * copied tables it reads changes (src/http/cached-answers.ts): `reads` names those every
     * request reads, `withParameter` those a query parameter adds when it is given (a filter,
     * a search); a derived table counts as its part's sources (DerivedTables.sources).
     * test/http/cached-answers.test.ts checks them against the tables DuckDB plans the route's
     * statements over.
     */
    answers?: AnswerReads;
  }
}

/** The copied tables a route's answer reads (config.answers). */
export interface AnswerReads {
  reads: readonly string[];
  withParameter?: Readonly<Record<string, readonly string[]>>;
}

/** The copied tables the answer of a request with the query parameters `parameters` reads. */
export function answerTables(rule: AnswerReads, parameters: Iterable<string>): string[] {
  const tables = new Set(rule.reads);
  const byParameter = rule.withParameter ?? {};
  // Own names only: a query may name `__proto__` (answered 422 later, by the handler).
  for (const parameter of parameters)
    if (Object.hasOwn(byParameter, parameter))
      for (const table of byParameter[parameter]!) tables.add(table);
  return [...tables].sort();
}

/** A resource's or report's routes, as one Fastify plugin typed by its zod schemas. */
export type RoutePlugin = FastifyPluginAsync<{ context: RouteContext }, never, ZodTypeProvider>;

const READ_IN_HANDLER = new WeakSet<object>();
const STRICT = new WeakSet<object>();

/**
 * A schema the document shows but the app does not validate before the handler: the handler
 * reads it itself, where the order of checks needs it later (a PATCH finds its record, 404,
 * before it reads its body, 422), or where reading it needs the store (an Idempotency-Key).
 * Typed `unknown`, as the handler receives the value unread.
 */
export function readInHandler(schema: z.ZodType): z.ZodType<unknown> {
  // A copy is marked, not `schema`: another route may validate with `schema` itself (a POST).
  const copy = schema.clone();
  READ_IN_HANDLER.add(copy);
  return copy;
}

/**
 * A strict query (docs/contract.md, "Team payout queries"): an unknown or repeated parameter is 422
 * `invalid_query` naming it, before any value is read; then the values are validated as any query.
 */
export function strictQuerySchema<T extends z.ZodObject>(schema: T): T {
  STRICT.add(schema);
  return schema;
}

/**
 * A strict query read in the handler (declared with `readInHandler(strictQuerySchema(...))`):
 * a record route reads it once it has found its record, so a missing record is 404 before a
 * bad query is 422.
 */
export function readStrictQuery<T extends z.ZodObject>(schema: T, query: unknown): z.output<T> {
  return parseQuery(schema, strictQuery(query, Object.keys(schema.shape)));
}

/**
 * The app's validator compiler: each part of the input validated by its zod schema, failing
 * with the API's errors. A path parameter that does not fit names no record: 404, as a
 * missing one. A query fails with 422 `validation_failed` (strict ones first with
 * `invalid_query`), a body with 422 `validation_failed` naming each field (parseBody).
 */
export const validateInput: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  // Left as received: the handler reads it.
  if (READ_IN_HANDLER.has(schema)) return () => ({});
  const attempt = (parse: (data: unknown) => unknown) => (data: unknown) => {
    try {
      return { value: parse(data) };
    } catch (error) {
      return { error: error as Error };
    }
  };
  if (httpPart === 'params')
    return (data) => {
      const parsed = schema.safeParse(data);
      return parsed.success ? { value: parsed.data } : { error: notFound() };
    };
  if (httpPart === 'querystring') {
    if (!STRICT.has(schema)) return attempt((data) => parseQuery(schema, data));
    const names = Object.keys((schema as z.ZodObject).shape);
    return attempt((data) => parseQuery(schema, strictQuery(data, names)));
  }
  if (httpPart === 'body') return attempt((data) => parseBody(schema, data));
  throw new Error(`validate ${String(httpPart)} in the handler (readInHandler)`);
};

/** Error codes a route declares it answers, by status (each code's status is ERROR_STATUSES'). */
export type ErrorsByStatus = Readonly<Record<number, readonly ErrorCode[]>>;

/** Error statuses every API route can answer, and their codes (docs/contract.md, "Errors"). */
const COMMON_ERRORS: ErrorsByStatus = {
  401: ['unauthenticated'],
  402: ['forbidden_plan'],
  403: ['forbidden_scope'],
  429: ['rate_limited'],
  500: ['internal_error'],
};

const NEGOTIATION: readonly ErrorCode[] = ['not_acceptable'];

/** The error envelope with the codes one status of one route answers with. */
export function errorEnvelope(codes: readonly ErrorCode[]) {
  return z
    .object({
      error: z.object({
        code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
        message: z.string(),
        fields: z.record(z.string(), z.string()).optional(),
        requiredPlan: z.enum(['studio', 'agency']).optional(),
        feature: z.string().optional(),
        requestId: z.string(),
      }),
    })
    .meta({ description: `Error: ${codes.join(', ')}` });
}

/** A response that is a file, in one of several media types. */
export interface FileResponse {
  description: string;
  content: Record<string, { schema: z.ZodType }>;
}

/**
 * A route's responses: its success schema(s) and an error envelope per error status, with the
 * codes of `errors` added to those every API route has.
 */
export function responses<S extends Record<number, z.ZodType | FileResponse>>(
  success: S,
  errors: ErrorsByStatus,
): S & Record<number, z.ZodType> {
  const all: Record<number, z.ZodType | FileResponse> = { ...success };
  // A JSON answer is negotiated (src/http/arrow-answer.ts): an Accept header that admits
  // neither JSON nor, on a list or report, Arrow is 406. A file answer is chosen by its query.
  const negotiated = Object.values(success).some((s) => s instanceof z.ZodType);
  const own: ErrorsByStatus = negotiated ? { ...errors, 406: NEGOTIATION } : errors;
  const statuses = new Set([...Object.keys(COMMON_ERRORS), ...Object.keys(own)].map(Number));
  for (const status of statuses) {
    const codes = new Set([...(COMMON_ERRORS[status] ?? []), ...(own[status] ?? [])]);
    all[status] = errorEnvelope([...codes]);
  }
  return all as S & Record<number, z.ZodType>;
}

/**
 * What every GET of the read model can answer besides its own errors: a malformed or
 * impossible `X-Data-Position` (422), and a position the read model did not reach within the
 * wait (503; src/http/data-position.ts).
 */
const READ_MODEL_ERRORS: ErrorsByStatus = {
  422: ['validation_failed'],
  503: ['read_model_unavailable'],
};

/** A GET of the read model's responses: `responses`, with the errors of its data position. */
export function readResponses<S extends Record<number, z.ZodType | FileResponse>>(
  success: S,
  errors: ErrorsByStatus,
): S & Record<number, z.ZodType> {
  const all: Record<number, readonly ErrorCode[]> = { ...errors };
  for (const [status, codes] of Object.entries(READ_MODEL_ERRORS))
    all[Number(status)] = [...new Set([...(all[Number(status)] ?? []), ...codes])];
  return responses(success, all);
}

/** A list's errors besides the common ones. */
export const LIST_ERRORS: ErrorsByStatus = {
  422: ['validation_failed', 'invalid_cursor'],
  503: ['read_model_unavailable'],
};
/** A write's errors besides the common ones. */
export const WRITE_ERRORS: ErrorsByStatus = {
  400: ['malformed_json'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: ['validation_failed'],
};
/** A create's errors: a write's, and its Idempotency-Key's. */
export const CREATE_ERRORS: ErrorsByStatus = {
  ...WRITE_ERRORS,
  409: ['idempotency_in_progress'],
  422: ['validation_failed', 'idempotency_key_reused'],
};
/** A create whose Idempotency-Key is required: a create's errors, and the missing key's. */
export const KEYED_CREATE_ERRORS: ErrorsByStatus = {
  ...CREATE_ERRORS,
  400: ['malformed_json', 'idempotency_key_required'],
};
/** A PATCH's errors: a write's, and the record's. */
export const UPDATE_ERRORS: ErrorsByStatus = { ...WRITE_ERRORS, 404: ['not_found'] };

/** A path `{id}`: a record's uuid (anything else is the 404 of a missing record). */
export const idParams = z.object({ id: z.uuid() });

/**
 * The checks a route declares that come before its input (docs/contract.md, "Order of checks"):
 * role and scope (403), then the plan's features (402), then its own `beforeInput`. The app runs it
 * in `preValidation`, after authentication and before the validation of params, query and body.
 */
export function checkBeforeInput(request: FastifyRequest): void {
  const { access, beforeInput } = request.routeOptions.config;
  if (access) requireAccess(request.caller, access);
  beforeInput?.(request);
}
