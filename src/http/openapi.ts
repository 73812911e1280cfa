import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import { documentedOverride } from '../schema-doc.ts';
import { tableRows } from '../api/table-answer.ts';
import { ARROW_STREAM } from './arrow-answer.ts';
import { META_KEY } from './arrow-metadata.ts';
import { DATA_POSITION_HEADER, DATA_POSITION_SCHEMA } from './data-position.ts';

// The OpenAPI 3.1 document is generated from the routes' own declarations (params, query,
// body, a response per status) by @fastify/swagger, with fastify-type-provider-zod turning
// their zod schemas into JSON Schema; the page is @fastify/swagger-ui, served from the
// package's own files (no CDN). What every route shares is added here: the headers the
// app's hooks set, and an operationId.

type JsonObject = Record<string, unknown>;

/** Paths under the API prefix that need no token: the document and its page. */
export function isPublicApiPath(prefix: string, path: string): boolean {
  return (
    path === `${prefix}/openapi.json` ||
    path === `${prefix}/docs` ||
    path.startsWith(`${prefix}/docs/`)
  );
}

const REQUEST_ID = {
  'X-Request-Id': {
    type: 'string',
    format: 'uuid',
    description: 'The request’s id, also the error’s requestId.',
  },
};
const DATA_AS_OF = {
  'X-Data-As-Of': {
    type: 'string',
    format: 'date-time',
    description:
      'The time of the newest committed change the answer reflects (once the read model has loaded).',
  },
};
/** The data position an answer stands at (src/http/data-position.ts). */
const DATA_POSITION_ANSWER = {
  [DATA_POSITION_HEADER]: {
    ...DATA_POSITION_SCHEMA,
    description:
      'A write’s answer: the store’s position after its commit. A GET’s answer: the position the read model had. Send it back as the request header X-Data-Position to read at least that far (docs/api.md, "Data positions").',
  },
};
/** The request header of a GET of the read model. */
const DATA_POSITION_PARAMETER = {
  ...DATA_POSITION_SCHEMA,
  description:
    'Read at least this far: the answer waits (at most 10 s, then 503 `read_model_unavailable`) until the read model has passed this position, as a write’s or a GET’s X-Data-Position gave it, whichever token’s. Malformed, or beyond the store’s current position: 422 `validation_failed`. Without it, a token’s reads still wait for its own last write.',
};

/** Set on every request a token was counted for (src/http/rate-limit.ts). */
const RATE_LIMIT = {
  'RateLimit-Policy': {
    type: 'string',
    description:
      'The token\'s quota, as the IETF RateLimit header fields draft writes it: `"per-token";q=<requests>;w=<window seconds>`.',
  },
  RateLimit: {
    type: 'string',
    description:
      'What is left of the quota: `"per-token";r=<requests remaining>;t=<seconds until the window resets>`.',
  },
  'RateLimit-Limit': {
    type: 'integer',
    minimum: 0,
    description: 'Requests per window (the older draft form of RateLimit-Policy).',
  },
  'RateLimit-Remaining': {
    type: 'integer',
    minimum: 0,
    description: 'Requests left in the window.',
  },
  'RateLimit-Reset': {
    type: 'integer',
    minimum: 0,
    description: 'Seconds until the window resets.',
  },
};
const RETRY_AFTER = {
  'Retry-After': {
    type: 'integer',
    minimum: 0,
    description: 'Seconds until the token may send again.',
  },
};

/** The headers the app's hooks set on a response of `method` with `status`. */
function appHeaders(method: string, status: string): JsonObject {
  const success = status.startsWith('2');
  return {
    ...REQUEST_ID,
    ...(method === 'GET' ? DATA_AS_OF : {}),
    ...(method === 'GET' || success ? DATA_POSITION_ANSWER : {}),
    ...(status === '401' ? {} : RATE_LIMIT),
    ...(status === '429' ? RETRY_AFTER : {}),
  };
}

/** A list's or report's 200: its JSON, or the Arrow IPC stream of its rows (arrow-answer.ts). */
function withArrow(json: JsonObject, rows: readonly string[]): JsonObject {
  return {
    description: `The answer as JSON, or with \`Accept: ${ARROW_STREAM}\` an Arrow IPC stream: one record batch of \`${rows.join('.')}\`, the rest of the answer as JSON text in the schema metadata \`${META_KEY}\` (docs/api.md, "Arrow answers").`,
    content: {
      'application/json': { schema: json },
      [ARROW_STREAM]: { schema: { type: 'string', format: 'binary' } },
    },
  };
}

/** `get /team-payouts/bills/{id}` → `getTeamPayoutsBillsId`. */
function operationId(method: string, path: string): string {
  return `${method.toLowerCase()}${path
    .replace(/[{}]/g, '')
    .replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase())}`;
}

const zodTransform = createJsonSchemaTransform({
  zodToJsonConfig: { override: documentedOverride },
});

type TransformInput = Parameters<typeof zodTransform>[0];

/** One route's part of the document: its zod schemas as JSON Schema, and the shared parts. */
function documentRoute(input: TransformInput): ReturnType<typeof zodTransform> {
  const { schema, url } = zodTransform(input);
  const transformed = schema as JsonObject;
  if (transformed.hide) return { schema, url };
  const method = input.route.method as string;
  const own = (input.schema as { responseHeaders?: Record<string, JsonObject> } | undefined)
    ?.responseHeaders;
  delete transformed.responseHeaders;
  transformed.operationId ??= operationId(method, input.url.replace(/:(\w+)/g, '{$1}'));
  const declared = (input.schema as { response?: Record<string, unknown> } | undefined)?.response;
  const rows = method === 'GET' ? tableRows(declared?.[200]) : undefined;
  const success = (transformed.response as Record<string, JsonObject> | undefined)?.[200];
  if (rows !== undefined && success !== undefined)
    (transformed.response as Record<string, JsonObject>)[200] = withArrow(success, rows);
  for (const [status, response] of Object.entries(
    (transformed.response ?? {}) as Record<string, JsonObject>,
  )) {
    response.headers = { ...appHeaders(method, status), ...own?.[status] };
  }
  const config = (input.route as { config?: { fromStore?: true } }).config;
  if (method === 'GET' && !config?.fromStore) {
    // The document's request headers come from a route's `headers` schema; this one is the
    // app's, read by its own hook (data-position.ts).
    const headers = (transformed.headers ?? { type: 'object', properties: {} }) as JsonObject;
    headers.properties = {
      ...(headers.properties as JsonObject),
      [DATA_POSITION_HEADER]: DATA_POSITION_PARAMETER,
    };
    transformed.headers = headers;
  }
  return { schema, url };
}

/** A query parameter that repeats (`?status=PAID&status=SENT`) is written as a form list. */
function documentObject(input: { openapiObject: Partial<JsonObject> }): JsonObject {
  const document = input.openapiObject as JsonObject;
  const paths = (document.paths ?? {}) as Record<string, Record<string, JsonObject>>;
  for (const operations of Object.values(paths))
    for (const operation of Object.values(operations))
      for (const parameter of (operation.parameters ?? []) as JsonObject[]) {
        const schema = parameter.schema as JsonObject | undefined;
        if (parameter.in === 'query' && schema?.type === 'array') {
          parameter.style = 'form';
          parameter.explode = true;
        }
      }
  return document;
}

/**
 * Registers the document's generation (before the routes, whose declarations it collects),
 * `GET <prefix>/openapi.json` and the page `GET <prefix>/docs`, both public.
 */
export async function registerOpenApi(app: FastifyInstance, prefix: string): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Ledgerline API',
        version: '1',
        description:
          'Time tracking, invoicing and team payouts. Money is always a decimal string; every list pages with an opaque cursor.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: prefix }],
      security: [{ bearer: [] }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'tt_<env>_<prefix12>_<secret32>',
          },
        },
      },
    },
    transform: documentRoute,
    transformObject: documentObject as never,
  });
  await app.register(fastifySwaggerUi, { routePrefix: `${prefix}/docs` });
  app.get(`${prefix}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}
