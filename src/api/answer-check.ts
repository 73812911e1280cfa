import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';

/**
 * What differs between a JSON answer and the schema its route declares for the status, or
 * undefined when they agree; a status the route does not declare differs too. Every write
 * checks its answer with it before COMMIT (src/api/write.ts), the tests every answer
 * (src/http/response-check.ts).
 */
export function answerMismatch(
  request: FastifyRequest,
  status: number,
  payload: string,
): string | undefined {
  const declared = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
  const schema = declared?.[String(status)] as z.ZodType | undefined;
  if (schema === undefined) return `status ${status} is not declared`;
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
