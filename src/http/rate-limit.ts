import { performance } from 'node:perf_hooks';
import type { FastifyReply } from 'fastify';
import { LRUCache } from 'lru-cache';
import { rateLimited } from '../api/errors.ts';

export interface RateLimitOptions {
  /** Sustained requests per second per token: the rate its bucket refills at. */
  perSecond: number;
  /** Requests a token may send at once: the size of its bucket. */
  burst: number;
  /** Buckets kept at most; past that the least recently used is dropped. */
  maxBuckets: number;
  /** Milliseconds on a monotonic clock; tests pass one they move by hand. */
  now: () => number;
}

/** 20 requests a second sustained, bursts of 100 (docs/decisions.md, "Rate limits"). */
export const DEFAULT_RATE_LIMIT = { perSecond: 20, burst: 100, maxBuckets: 10_000 } as const;

export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket's size. */
  limit: number;
  /** Whole requests left right now. */
  remaining: number;
  /** When refused: whole seconds (at least 1) until one request is allowed again; else 0. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * An in-memory token bucket per key (the API token's prefix): each request takes one token,
 * tokens refill continuously at `perSecond` up to `burst`. Per process: behind a load
 * balancer each server counts on its own.
 *
 * Memory stays bounded: a bucket left alone long enough to refill completely behaves like
 * no bucket at all, so it is dropped; and there are never more than `maxBuckets`.
 */
export class TokenBucketLimiter {
  readonly perSecond: number;
  readonly burst: number;
  readonly maxBuckets: number;
  readonly #now: () => number;
  readonly #refillMs: number;
  /** In least recently used order: a bucket is moved to the end on every use. */
  readonly #buckets: LRUCache<string, Bucket>;

  constructor(options: Partial<RateLimitOptions> = {}) {
    this.perSecond = options.perSecond ?? DEFAULT_RATE_LIMIT.perSecond;
    this.burst = options.burst ?? DEFAULT_RATE_LIMIT.burst;
    this.maxBuckets = options.maxBuckets ?? DEFAULT_RATE_LIMIT.maxBuckets;
    this.#now = options.now ?? (() => performance.now());
    if (!(Number.isFinite(this.perSecond) && this.perSecond > 0))
      throw new RangeError('The rate limit must be a positive number of requests per second');
    if (!(Number.isInteger(this.burst) && this.burst >= 1))
      throw new RangeError('The rate limit burst must be a whole number of at least 1');
    if (!(Number.isInteger(this.maxBuckets) && this.maxBuckets >= 1))
      throw new RangeError('The rate limiter must keep at least one bucket');
    this.#refillMs = (this.burst / this.perSecond) * 1000;
    this.#buckets = new LRUCache({ max: this.maxBuckets });
  }

  /** Buckets held now (for tests of the memory bound). */
  get size(): number {
    return this.#buckets.size;
  }

  /** Counts one request for `key`; a refused request takes nothing. */
  take(key: string): RateLimitDecision {
    const now = this.#now();
    this.#dropFullBuckets(now);
    const bucket = this.#buckets.peek(key);
    let tokens =
      bucket === undefined
        ? this.burst
        : Math.min(
            this.burst,
            bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * this.perSecond,
          );
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.#buckets.set(key, { tokens, at: now });
    return {
      allowed,
      limit: this.burst,
      remaining: Math.floor(tokens),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.perSecond)),
    };
  }

  /**
   * Least recently used first, so the walk stops at the first bucket still refilling; the keys
   * are deleted after the walk, not under lru-cache's iterator.
   */
  #dropFullBuckets(now: number): void {
    const full: string[] = [];
    for (const key of this.#buckets.rkeys()) {
      const bucket = this.#buckets.peek(key);
      if (bucket !== undefined && now - bucket.at < this.#refillMs) break;
      full.push(key);
    }
    for (const key of full) this.#buckets.delete(key);
  }
}

/**
 * Counts one request of an authenticated token (decisions 3). Every counted response carries
 * `RateLimit-Limit` and `RateLimit-Remaining`; past the limit it is 429 `rate_limited` with
 * `Retry-After` in whole seconds.
 */
export function enforceRateLimit(
  limiter: TokenBucketLimiter,
  tokenPrefix: string,
  reply: FastifyReply,
): void {
  const decision = limiter.take(tokenPrefix);
  void reply.header('RateLimit-Limit', decision.limit);
  void reply.header('RateLimit-Remaining', decision.remaining);
  if (!decision.allowed) {
    void reply.header('Retry-After', decision.retryAfterSeconds);
    throw rateLimited();
  }
}
