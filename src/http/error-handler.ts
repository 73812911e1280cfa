import type { FastifyError, FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import { ApiError, type ErrorBody } from '../api/errors.ts';

/** Fastify's own errors, mapped onto the API's codes (decisions 3). */
const FRAMEWORK_ERRORS: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'malformed_json', 'The request body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'malformed_json', 'The request body is empty.'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'The request body is larger than 1 MiB.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    415,
    'unsupported_media_type',
    'The request body must be application/json.',
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    400,
    'malformed_json',
    'The request body does not match its Content-Length.',
  ],
};

/**
 * One error envelope for every failure: `{ error: { code, message, ..., requestId } }`.
 * An unexpected error is logged with its stack and answered as a plain 500: never a stack
 * trace or SQL text in a response. `countRequest` (the rate limit) runs before the not-found
 * answer too, so a token is counted whether or not the path exists.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  countRequest: preHandlerAsyncHookHandler,
): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    let status: number;
    let body: ErrorBody;
    if (error instanceof ApiError) {
      // A 500 answered on purpose names what failed; its cause is for the log.
      if (error.status === 500) request.log.error({ err: error }, 'request failed');
      status = error.status;
      body = { code: error.code, message: error.message, ...error.extra };
    } else if (error.code && FRAMEWORK_ERRORS[error.code]) {
      const [s, code, message] = FRAMEWORK_ERRORS[error.code]!;
      status = s;
      body = { code, message };
    } else if (
      error.code === 'FST_ERR_CTP_INVALID_TYPE' ||
      (error.statusCode === 400 && error.message.includes('JSON'))
    ) {
      status = 400;
      body = { code: 'malformed_json', message: 'The request body is not valid JSON.' };
    } else {
      request.log.error({ err: error }, 'request failed');
      status = 500;
      body = {
        code: 'internal_error',
        message: 'Something went wrong on our side; the request was not completed.',
      };
    }
    return reply.status(status).send({ error: { ...body, requestId: request.id } });
  });
  app.setNotFoundHandler({ preHandler: countRequest }, (request, reply) =>
    reply.status(404).send({
      error: { code: 'not_found', message: 'There is no such endpoint.', requestId: request.id },
    }),
  );
}
