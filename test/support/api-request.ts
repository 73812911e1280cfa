import type { FastifyInstance } from 'fastify';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
export type Body = Record<string, any>;

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /api/v1. */
  path: string;
  token: string;
  /** JSON text as sent, or a value to serialise; sent as application/json. */
  body?: string | object | undefined;
  headers?: Record<string, string>;
}

/** One API call through `app.inject`, with the bearer token and a JSON body when given. */
export async function apiRequest(app: FastifyInstance, request: ApiRequest) {
  const { body } = request;
  const res = await app.inject({
    method: request.method,
    url: `/api/v1${request.path}`,
    headers: {
      authorization: `Bearer ${request.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
    },
    ...(body === undefined
      ? {}
      : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.statusCode, body: res.json<Body>(), headers: res.headers };
}
