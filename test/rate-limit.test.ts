import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import {
  DEFAULT_RATE_LIMIT,
  rateLimitPolicy,
  type RateLimitOptions,
} from '../src/http/rate-limit.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { smallSnapshot, TOKENS } from './support/small-snapshot.ts';

describe('per-token rate limit over HTTP (decisions 3)', () => {
  let h: Harness;
  let app: FastifyInstance;

  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    app = await appWith({ perSecond: 1, burst: 3 }); // three requests per window of 3 s
    // The windows follow Date.now(), which the tests move by hand: no sleeping, no timing asserts.
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await app.close();
    await h.close();
  });

  const appWith = (rateLimit: Partial<RateLimitOptions>) =>
    buildApp({ db: h.db, readModel: h.readModel, status: h.status, tokenEnv: 'test', rateLimit });
  const me = (token?: string, to = app) =>
    to.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
  const advanceSeconds = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

  it('lets a burst through, then answers 429 rate_limited with Retry-After and the envelope', async () => {
    const burst = [await me(TOKENS.owner), await me(TOKENS.owner), await me(TOKENS.owner)];
    expect(burst.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(burst.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3']);
    expect(burst.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);

    const limited = await me(TOKENS.owner);
    expect(limited.statusCode).toBe(429);
    // The window began with the burst, on a clock that has not moved since: three seconds left.
    expect(limited.headers['retry-after']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.json()).toEqual({
      error: {
        code: 'rate_limited',
        message: expect.any(String),
        requestId: limited.headers['x-request-id'],
      },
    });
  });

  it("sends the current draft's RateLimit-Policy and RateLimit fields on a counted answer", async () => {
    const answer = await me(TOKENS.member);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['ratelimit-policy']).toBe('"per-token";q=3;w=3');
    expect(answer.headers.ratelimit).toBe('"per-token";r=2;t=3');
    expect(answer.headers['ratelimit-reset']).toBe('3');
    advanceSeconds(1);
    expect((await me(TOKENS.member)).headers.ratelimit).toBe('"per-token";r=1;t=2');
  });

  it('sends them on a 429 too, with nothing remaining and t equal to Retry-After', async () => {
    const limited = await me(TOKENS.owner);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['ratelimit-policy']).toBe('"per-token";q=3;w=3');
    expect(limited.headers.ratelimit).toBe(`"per-token";r=0;t=${limited.headers['retry-after']}`);
  });

  it('counts each token on its own', async () => {
    expect((await me(TOKENS.owner)).statusCode).toBe(429);
    expect((await me(TOKENS.manager)).statusCode).toBe(200);
  });

  it('counts a request to a path that does not exist', async () => {
    const answer = await app.inject({
      method: 'GET',
      url: '/api/v1/no-such-endpoint',
      headers: { authorization: `Bearer ${TOKENS.owner}` },
    });
    expect(answer.statusCode).toBe(429);
  });

  it('answers 401 before 429, and a request without a valid token counts for no one', async () => {
    const unauthenticated = await me();
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers['ratelimit-policy']).toBeUndefined();
    // The admin's public prefix with a wrong secret: refused, and not charged to the admin.
    const wrongSecret = 'tt_test_AdminPrefix1_abcdefghijklmnopqrstuvwxyz012346';
    for (let i = 0; i < 5; i += 1) expect((await me(wrongSecret)).statusCode).toBe(401);
    const admin = [await me(TOKENS.admin), await me(TOKENS.admin), await me(TOKENS.admin)];
    expect(admin.map((r) => r.statusCode)).toEqual([200, 200, 200]);
  });

  it('does not count public paths', async () => {
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    expect(health.headers['ratelimit-limit']).toBeUndefined();
    expect(health.headers.ratelimit).toBeUndefined();
  });

  it('keeps at most maxKeys tokens: the least recently used one is forgotten', async () => {
    const small = await appWith({ perSecond: 1, burst: 1, maxKeys: 2 });
    try {
      expect((await me(TOKENS.owner, small)).statusCode).toBe(200);
      expect((await me(TOKENS.owner, small)).statusCode).toBe(429);
      // Two other tokens since push the owner out of an LRU of two: its count is gone.
      await me(TOKENS.manager, small);
      expect((await me(TOKENS.owner, small)).statusCode).toBe(429);
      await me(TOKENS.member, small);
      await me(TOKENS.admin, small);
      expect((await me(TOKENS.owner, small)).statusCode).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('starts a new window after Retry-After seconds, with the whole burst again', async () => {
    // The admin spent its window above.
    const limited = await me(TOKENS.admin);
    expect(limited.statusCode).toBe(429);
    advanceSeconds(Number(limited.headers['retry-after']));
    const again = [await me(TOKENS.admin), await me(TOKENS.admin), await me(TOKENS.admin)];
    expect(again.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(again.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
    expect((await me(TOKENS.admin)).statusCode).toBe(429);
  });
});

describe('rate limit policy', () => {
  it('turns 20 per second with bursts of 100 into 100 requests per 5 s, 10,000 tokens kept', () => {
    expect(rateLimitPolicy()).toEqual({ quota: 100, windowSeconds: 5, maxKeys: 10_000 });
    expect(DEFAULT_RATE_LIMIT).toMatchObject({ perSecond: 20, burst: 100 });
  });

  it('rounds the window up to whole seconds, at least 1, so the rate never rises', () => {
    expect(rateLimitPolicy({ perSecond: 3, burst: 10 })).toMatchObject({
      quota: 10,
      windowSeconds: 4,
    });
    expect(rateLimitPolicy({ perSecond: 0.4, burst: 1 })).toMatchObject({ windowSeconds: 3 });
    expect(rateLimitPolicy({ perSecond: 1e9, burst: 5 })).toMatchObject({ windowSeconds: 1 });
  });

  it.each([
    { perSecond: 0 },
    { perSecond: Number.NaN },
    { burst: 0 },
    { burst: 1.5 },
    { maxKeys: 0 },
  ])('refuses the options %j', (options) => {
    expect(() => rateLimitPolicy(options)).toThrow(RangeError);
  });
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
