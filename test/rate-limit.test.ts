import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { DEFAULT_RATE_LIMIT, TokenBucketLimiter } from '../src/http/rate-limit.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { smallSnapshot, TOKENS } from './support/small-snapshot.ts';

/** A clock the tests move by hand: no sleeping, no timing asserts. */
function manualClock() {
  let ms = 0;
  return {
    now: () => ms,
    advance(seconds: number) {
      ms += seconds * 1000;
    },
  };
}

describe('per-token rate limit over HTTP (decisions 3)', () => {
  let h: Harness;
  let app: FastifyInstance;
  const clock = manualClock();

  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    app = await buildApp({
      db: h.db,
      readModel: h.readModel,
      status: h.status,
      tokenEnv: 'test',
      rateLimit: { perSecond: 1, burst: 3, now: clock.now },
    });
  });
  afterAll(async () => {
    await app.close();
    await h.close();
  });

  const me = (token?: string) =>
    app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  it('lets a burst through, then answers 429 rate_limited with Retry-After and the envelope', async () => {
    const burst = [await me(TOKENS.owner), await me(TOKENS.owner), await me(TOKENS.owner)];
    expect(burst.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(burst.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3']);
    expect(burst.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);

    const limited = await me(TOKENS.owner);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.json()).toEqual({
      error: {
        code: 'rate_limited',
        message: expect.any(String),
        requestId: limited.headers['x-request-id'],
      },
    });
  });

  it('counts each token on its own', async () => {
    expect((await me(TOKENS.owner)).statusCode).toBe(429);
    expect((await me(TOKENS.manager)).statusCode).toBe(200);
  });

  it('answers 401 before 429, and a request without a valid token counts for no one', async () => {
    expect((await me()).statusCode).toBe(401);
    // The admin's public prefix with a wrong secret: refused, and not charged to the admin.
    const wrongSecret = 'tt_test_AdminPrefix1_abcdefghijklmnopqrstuvwxyz012346';
    for (let i = 0; i < 5; i += 1) expect((await me(wrongSecret)).statusCode).toBe(401);
    const admin = [await me(TOKENS.admin), await me(TOKENS.admin), await me(TOKENS.admin)];
    expect(admin.map((r) => r.statusCode)).toEqual([200, 200, 200]);
  });

  it('refills with time: after Retry-After seconds the token may send again', async () => {
    const limited = await me(TOKENS.owner);
    expect(limited.statusCode).toBe(429);
    clock.advance(Number(limited.headers['retry-after']));
    const again = await me(TOKENS.owner);
    expect(again.statusCode).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe('0');
    expect((await me(TOKENS.owner)).statusCode).toBe(429);

    clock.advance(3);
    const refilled = [await me(TOKENS.owner), await me(TOKENS.owner), await me(TOKENS.owner)];
    expect(refilled.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect((await me(TOKENS.owner)).statusCode).toBe(429);
  });
});

describe('token buckets', () => {
  it('rounds Retry-After up to whole seconds, at least 1', () => {
    const clock = manualClock();
    const slow = new TokenBucketLimiter({ perSecond: 0.4, burst: 1, now: clock.now });
    expect(slow.take('a')).toMatchObject({ allowed: true, remaining: 0, retryAfterSeconds: 0 });
    expect(slow.take('a')).toMatchObject({ allowed: false, retryAfterSeconds: 3 });
    clock.advance(2);
    expect(slow.take('a')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });

    const fast = new TokenBucketLimiter({ perSecond: 50, burst: 1, now: clock.now });
    fast.take('a');
    expect(fast.take('a')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('does not charge a refused request', () => {
    const clock = manualClock();
    const limiter = new TokenBucketLimiter({ perSecond: 1, burst: 1, now: clock.now });
    limiter.take('a');
    for (let i = 0; i < 10; i += 1) expect(limiter.take('a').allowed).toBe(false);
    clock.advance(1);
    expect(limiter.take('a').allowed).toBe(true);
  });

  it('never refills past the burst', () => {
    const clock = manualClock();
    const limiter = new TokenBucketLimiter({ perSecond: 10, burst: 2, now: clock.now });
    limiter.take('a');
    clock.advance(3600);
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('keeps memory bounded: drops buckets that have refilled, and keeps at most maxBuckets', () => {
    const clock = manualClock();
    const limiter = new TokenBucketLimiter({
      perSecond: 1,
      burst: 2,
      maxBuckets: 5,
      now: clock.now,
    });
    for (let i = 0; i < 8; i += 1) limiter.take(`token-${i}`);
    expect(limiter.size).toBe(5);
    // Two seconds refill a bucket of two completely: it is then the same as no bucket.
    clock.advance(2);
    limiter.take('late');
    expect(limiter.size).toBe(1);
  });

  it('forgets a refilled bucket without changing what the token may do', () => {
    const clock = manualClock();
    const limiter = new TokenBucketLimiter({ perSecond: 1, burst: 2, now: clock.now });
    limiter.take('a');
    limiter.take('a');
    clock.advance(2);
    limiter.take('b'); // sweeps 'a', which is full again
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('defaults to 20 per second with bursts of 100', () => {
    const limiter = new TokenBucketLimiter();
    expect([limiter.perSecond, limiter.burst]).toEqual([20, 100]);
    expect(DEFAULT_RATE_LIMIT).toMatchObject({ perSecond: 20, burst: 100 });
  });

  it.each([{ perSecond: 0 }, { perSecond: Number.NaN }, { burst: 0 }, { burst: 1.5 }])(
    'refuses the options %j',
    (options) => {
      expect(() => new TokenBucketLimiter(options)).toThrow(RangeError);
    },
  );
});

describe('rate limit configuration', () => {
  it('reads RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST, unset meaning the defaults', () => {
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '2.5', RATE_LIMIT_BURST: '10' })).toMatchObject({
      rateLimitPerSecond: 2.5,
      rateLimitBurst: 10,
    });
    expect(loadConfig({})).toMatchObject({
      rateLimitPerSecond: undefined,
      rateLimitBurst: undefined,
    });
  });

  it.each([
    [{ RATE_LIMIT_PER_SECOND: '0' }, /^Invalid configuration: RATE_LIMIT_PER_SECOND /],
    [{ RATE_LIMIT_PER_SECOND: 'fast' }, /^Invalid configuration: RATE_LIMIT_PER_SECOND /],
    [{ RATE_LIMIT_BURST: '1.5' }, /^Invalid configuration: RATE_LIMIT_BURST /],
    [{ RATE_LIMIT_BURST: '0' }, /^Invalid configuration: RATE_LIMIT_BURST /],
  ])('names a bad value in one line: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
