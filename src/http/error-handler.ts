import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { ApiError, ERROR_STATUSES, type ErrorBody } from '../api/errors.ts';

/** Fastify's own errors, mapped onto the API's codes (docs/contract.md, "Errors"). */
const FRAMEWORK_ERRORS: Record<string, ErrorBody> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'malformed_json',
    message: 'The request body is not valid JSON.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'malformed_json', message: 'The request body is empty.' },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    message: 'The request body is larger than 1 MiB.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'The request body must be application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'malformed_json',
    message: 'The request body does not match its Content-Length.',
  },
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
    let body: ErrorBody;
    if (error instanceof ApiError) {
      // A 500 answered on purpose names what failed; its cause is for the log.
      if (error.status === 500) request.log.error({ err: error }, 'request failed');
      body = { code: error.code, message: error.message, ...error.extra };
    } else if (error.code && FRAMEWORK_ERRORS[error.code]) {
      body = FRAMEWORK_ERRORS[error.code]!;
    } else if (
      error.code === 'FST_ERR_CTP_INVALID_TYPE' ||
      (error.statusCode === 400 && error.message.includes('JSON'))
    ) {
      body = { code: 'malformed_json', message: 'The request body is not valid JSON.' };
    } else {
      request.log.error({ err: error }, 'request failed');
      body = {
        code: 'internal_error',
        message: 'Something went wrong on our side; the request was not completed.',
      };
    }
    return answerError(reply, body, request.id);
  });
  app.setNotFoundHandler({ preHandler: countRequest }, (request, reply) =>
    answerError(reply, { code: 'not_found', message: 'There is no such endpoint.' }, request.id),
  );
}

/**
 * Sends the error envelope with the status of its code (ERROR_STATUSES), for the answers made
 * after routing and the router's own (client-errors.ts).
 */
export function answerError(reply: FastifyReply, body: ErrorBody, requestId: string) {
  return reply.status(ERROR_STATUSES[body.code]).send({ error: { ...body, requestId } });
}
