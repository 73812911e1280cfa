import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';

/**
 * Checks every JSON response of a route that declares its responses against the schema it
 * declares for the status sent; a response that does not match, or a status the route does
 * not declare, is replaced by a 500 `response_schema_mismatch` naming what differs. For the
 * tests (the app option `validateResponses`): in production responses are serialized as they
 * are, since parsing a large report per request would cost more than the answer itself.
 */
export function registerResponseCheck(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const declared = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
    // Streams (export files) are not JSON; routes without declarations are not the API's.
    if (declared === undefined || typeof payload !== 'string') return payload;
    const schema = declared[String(reply.statusCode)] as z.ZodType | undefined;
    const problem =
      schema === undefined
        ? `status ${reply.statusCode} is not declared`
        : mismatch(schema, payload);
    if (problem === undefined) return payload;
    void reply.code(500);
    return JSON.stringify({
      error: {
        code: 'response_schema_mismatch',
        message: `${request.method} ${request.routeOptions.url}: ${problem}; the response was ${payload.slice(0, 2000)}`,
        requestId: request.id,
      },
    });
  });
}

function mismatch(schema: z.ZodType, payload: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return 'the body is not JSON';
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return undefined;
  return parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
    .join('; ');
}
