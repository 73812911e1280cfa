import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Caller } from '../api/caller.ts';
import { rateLimited } from '../api/errors.ts';

/**
 * A fixed window per token (docs/decisions.md, "Rate limits"): `requests` per window of
 * `windowSeconds`, the window starting with the token's first request. All of them may come
 * at once; past them the token waits for the window to end, whatever its rate before.
 */
export interface RateLimitOptions {
  /** Requests a token may send in one window. */
  requests: number;
  /** How long a window lasts, in whole seconds (the draft's `w` is whole seconds). */
  windowSeconds: number;
  /** Tokens whose counts are kept at most; past that the least recently used is forgotten. */
  maxKeys: number;
}

/** 100 requests per window of 5 s (RATE_LIMIT_REQUESTS, RATE_LIMIT_WINDOW_SECONDS). */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = {
  requests: 100,
  windowSeconds: 5,
  maxKeys: 10_000,
};

/** The policy's name in the `RateLimit-Policy` and `RateLimit` fields. */
const POLICY_NAME = 'per-token';

/** `options` over the defaults, each a whole number of at least 1, or a RangeError. */
export function rateLimitPolicy(options: Partial<RateLimitOptions> = {}): RateLimitOptions {
  const policy = { ...DEFAULT_RATE_LIMIT, ...options };
  if (!(Number.isInteger(policy.requests) && policy.requests >= 1))
    throw new RangeError('The rate limit must be a whole number of at least 1 request per window');
  if (!(Number.isInteger(policy.windowSeconds) && policy.windowSeconds >= 1))
    throw new RangeError('The rate limit window must be a whole number of at least 1 second');
  if (!(Number.isInteger(policy.maxKeys) && policy.maxKeys >= 1))
    throw new RangeError('The rate limiter must keep at least one token');
  return policy;
}

/** The token a request is counted against; none on public paths, which are not counted. */
const tokenOf = (request: FastifyRequest): string | undefined =>
  (request as { caller?: Caller }).caller?.tokenPrefix;

/**
 * Counts each authenticated request against its token with @fastify/rate-limit
 * (docs/contract.md, "Errors"). The authentication hook runs first (the library's hook is a route's
 * own, which runs after the app's), so 401 and 402 come before 429 and a bad token is charged to no
 * one. Past the window's requests:
 * 429 `rate_limited` with `Retry-After` in whole seconds. Every counted response carries the
 * library's `RateLimit-Limit`, `-Remaining`, `-Reset`, and the current draft's
 * `RateLimit-Policy` and `RateLimit` fields. Per process, in an LRU of `maxKeys` tokens.
 *
 * @returns the hook that counts a request, for the not-found handler, which has no route.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: Partial<RateLimitOptions> = {},
): Promise<preHandlerAsyncHookHandler> {
  const policy = rateLimitPolicy(options);
  await app.register(fastifyRateLimit, {
    max: policy.requests,
    timeWindow: policy.windowSeconds * 1000,
    cache: policy.maxKeys,
    keyGenerator: (request) => tokenOf(request) ?? '',
    allowList: (request) => tokenOf(request) === undefined,
    enableDraftSpec: true,
    errorResponseBuilder: () => rateLimited(),
  });
  const policyField = `"${POLICY_NAME}";q=${policy.requests};w=${policy.windowSeconds}`;
  app.addHook('onSend', async (_request, reply) => {
    // The library set these on a counted request only.
    const remaining = reply.getHeader('ratelimit-remaining');
    const reset = reply.getHeader('ratelimit-reset');
    if (remaining === undefined || reset === undefined) return;
    void reply.header('RateLimit-Policy', policyField);
    void reply.header('RateLimit', `"${POLICY_NAME}";r=${String(remaining)};t=${String(reset)}`);
  });
  return app.rateLimit();
}
