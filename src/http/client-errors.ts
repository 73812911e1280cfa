import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUSES, type ErrorBody } from '../api/errors.ts';
import { answerError } from './error-handler.ts';

// Requests that fail before any route runs still get the error envelope
// (docs/contract.md, "Errors") and an X-Request-Id: what Node's HTTP parser refuses, and what
// Fastify's router cannot route.

/**
 * The longest path parameter the router passes on. Node already refuses a request line and
 * headers over 16 KiB (431), so no parameter is cut short: an overlong id reaches its route,
 * after authentication, and is the 404 of any id that names no record.
 */
export const MAX_PARAM_LENGTH = 16 * 1024;

const PARSER_ERRORS: Record<string, ErrorBody> = {
  HPE_HEADER_OVERFLOW: {
    code: 'header_too_large',
    message: 'The URL and headers of the request are larger than 16 KiB.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'request_timeout',
    message: 'The request did not arrive in time.',
  },
};
const NOT_HTTP: ErrorBody = {
  code: 'malformed_request',
  message: 'The request is not valid HTTP/1.1.',
};

/**
 * Fastify's `clientErrorHandler`: Node's parser refused the request (headers over 16 KiB,
 * a timeout, bytes that are not HTTP), so there is no request object, no hook and no reply.
 * The answer is written to the socket by hand, which is then closed, as Node does: the
 * parser cannot read on after an error.
 */
export function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = PARSER_ERRORS[error.code ?? ''] ?? NOT_HTTP;
  const status = ERROR_STATUSES[answer.code];
  const requestId = randomUUID();
  this.log.debug({ err: error, requestId }, 'client error');
  const body = JSON.stringify({ error: { ...answer, requestId } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

/**
 * Fastify's `frameworkErrors`: the router could not route the URL (a percent-encoding that
 * does not decode, or a parameter over MAX_PARAM_LENGTH) and answers before any hook, so
 * before authentication.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  void reply.header('X-Request-Id', request.id);
  void answerError(
    reply,
    {
      code: 'malformed_request',
      message:
        error.code === 'FST_ERR_BAD_URL'
          ? 'The URL is not valid: a percent-encoded part does not decode as UTF-8.'
          : 'The URL cannot be routed.',
    },
    request.id,
  );
}
