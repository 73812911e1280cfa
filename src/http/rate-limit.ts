import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Caller } from '../api/caller.ts';
import { rateLimited } from '../api/errors.ts';

export interface RateLimitOptions {
  /** Requests per second per token, on average: the rate the burst is spread over. */
  perSecond: number;
  /** Requests a token may send at once: the quota of one window. */
  burst: number;
  /** Tokens whose counts are kept at most; past that the least recently used is forgotten. */
  maxKeys: number;
}

/** 20 requests a second, bursts of 100 (docs/decisions.md, "Rate limits"). */
export const DEFAULT_RATE_LIMIT = { perSecond: 20, burst: 100, maxKeys: 10_000 } as const;

/** `quota` requests per fixed window of `windowSeconds`, per token. */
export interface RateLimitPolicy {
  quota: number;
  windowSeconds: number;
  maxKeys: number;
}

/** The policy's name in the `RateLimit-Policy` and `RateLimit` fields. */
const POLICY_NAME = 'per-token';

/**
 * The fixed window closest to a token bucket of `burst` refilled at `perSecond`: the window
 * holds the burst and lasts as long as the bucket takes to refill, so a token may still send
 * its whole burst at once and its long-run rate stays `perSecond`. The window is rounded up to
 * whole seconds (at least 1), which never raises the rate and keeps the draft's `w` an integer.
 */
export function rateLimitPolicy(options: Partial<RateLimitOptions> = {}): RateLimitPolicy {
  const perSecond = options.perSecond ?? DEFAULT_RATE_LIMIT.perSecond;
  const burst = options.burst ?? DEFAULT_RATE_LIMIT.burst;
  const maxKeys = options.maxKeys ?? DEFAULT_RATE_LIMIT.maxKeys;
  if (!(Number.isFinite(perSecond) && perSecond > 0))
    throw new RangeError('The rate limit must be a positive number of requests per second');
  if (!(Number.isInteger(burst) && burst >= 1))
    throw new RangeError('The rate limit burst must be a whole number of at least 1');
  if (!(Number.isInteger(maxKeys) && maxKeys >= 1))
    throw new RangeError('The rate limiter must keep at least one token');
  return { quota: burst, windowSeconds: Math.max(1, Math.ceil(burst / perSecond)), maxKeys };
}

/** The token a request is counted against; none on public paths, which are not counted. */
const tokenOf = (request: FastifyRequest): string | undefined =>
  (request as { caller?: Caller }).caller?.tokenPrefix;

/**
 * Counts each authenticated request against its token with @fastify/rate-limit (decisions 3).
 * The authentication hook runs first (the library's hook is a route's own, which runs after the
 * app's), so 401 and 402 come before 429 and a bad token is charged to no one. Past the quota:
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
    max: policy.quota,
    timeWindow: policy.windowSeconds * 1000,
    cache: policy.maxKeys,
    keyGenerator: (request) => tokenOf(request) ?? '',
    allowList: (request) => tokenOf(request) === undefined,
    enableDraftSpec: true,
    errorResponseBuilder: () => rateLimited(),
  });
  const policyField = `"${POLICY_NAME}";q=${policy.quota};w=${policy.windowSeconds}`;
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
