import type { FastifyInstance } from 'fastify';
import { answerMismatch } from '../api/answer-check.ts';

/**
 * Checks every JSON response of a route that declares its responses against the schema it
 * declares for the status sent; a response that does not match, or a status the route does
 * not declare, is replaced by a 500 `response_schema_mismatch` naming what differs. For the
 * tests (the app option `validateResponses`): in production responses are serialized as they
 * are, since parsing a large report per request would cost more than the answer itself. A
 * write checks its own answer in production too, before its COMMIT (src/api/write.ts).
 */
export function registerResponseCheck(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    // Streams (export files) are not JSON; routes without declarations are not the API's.
    if (request.routeOptions.schema?.response === undefined || typeof payload !== 'string')
      return payload;
    const problem = answerMismatch(request, reply.statusCode, payload);
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
