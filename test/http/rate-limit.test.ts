import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import {
  DEFAULT_RATE_LIMIT,
  rateLimitPolicy,
  type RateLimitOptions,
} from '../../src/http/rate-limit.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

describe('per-token rate limit over HTTP (docs/contract.md, "Errors")', () => {
  let h: Harness;
  let app: FastifyInstance;

  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    app = await appWith({ requests: 3, windowSeconds: 3 });
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

  it("lets the window's requests through at once, then answers 429 rate_limited with Retry-After and the envelope", async () => {
    const first = [await me(TOKENS.owner), await me(TOKENS.owner), await me(TOKENS.owner)];
    expect(first.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(first.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3']);
    expect(first.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);

    const limited = await me(TOKENS.owner);
    expect(limited.statusCode).toBe(429);
    // The window began with the first request, on a clock that has not moved since: 3 s left.
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
    const small = await appWith({ requests: 1, windowSeconds: 1, maxKeys: 2 });
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

  it('refuses for the rest of the window however long the token waited, then starts a new one', async () => {
    // The admin spent its window above.
    const limited = await me(TOKENS.admin);
    expect(limited.statusCode).toBe(429);
    advanceSeconds(Number(limited.headers['retry-after']));
    const again = [await me(TOKENS.admin), await me(TOKENS.admin), await me(TOKENS.admin)];
    expect(again.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(again.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
    expect((await me(TOKENS.admin)).statusCode).toBe(429);
    // A fixed window, not a rate: no request comes back as time passes, until it ends.
    advanceSeconds(2);
    const late = await me(TOKENS.admin);
    expect(late.statusCode).toBe(429);
    expect(late.headers['retry-after']).toBe('1');
    advanceSeconds(1);
    expect((await me(TOKENS.admin)).statusCode).toBe(200);
  });
});

describe('rate limit policy', () => {
  it('is 100 requests per window of 5 s by default, 10,000 tokens kept', () => {
    expect(DEFAULT_RATE_LIMIT).toEqual({ requests: 100, windowSeconds: 5, maxKeys: 10_000 });
    expect(rateLimitPolicy()).toEqual(DEFAULT_RATE_LIMIT);
    expect(rateLimitPolicy({ requests: 10 })).toEqual({
      requests: 10,
      windowSeconds: 5,
      maxKeys: 10_000,
    });
  });

  it.each([
    { requests: 0 },
    { requests: 1.5 },
    { requests: Number.NaN },
    { windowSeconds: 0 },
    { windowSeconds: 0.5 },
    { windowSeconds: Number.POSITIVE_INFINITY },
    { maxKeys: 0 },
  ])('refuses the options %j', (options) => {
    expect(() => rateLimitPolicy(options)).toThrow(RangeError);
  });
});

describe('rate limit configuration', () => {
  it('reads RATE_LIMIT_REQUESTS and RATE_LIMIT_WINDOW_SECONDS, unset meaning the defaults', () => {
    expect(
      loadConfig({ RATE_LIMIT_REQUESTS: '10', RATE_LIMIT_WINDOW_SECONDS: '60' }),
    ).toMatchObject({ rateLimitRequests: 10, rateLimitWindowSeconds: 60 });
    expect(loadConfig({})).toMatchObject({
      rateLimitRequests: undefined,
      rateLimitWindowSeconds: undefined,
    });
  });

  it.each([
    [{ RATE_LIMIT_REQUESTS: '0' }, /^Invalid configuration: RATE_LIMIT_REQUESTS /],
    [{ RATE_LIMIT_REQUESTS: '2.5' }, /^Invalid configuration: RATE_LIMIT_REQUESTS /],
    [{ RATE_LIMIT_REQUESTS: 'many' }, /^Invalid configuration: RATE_LIMIT_REQUESTS /],
    [{ RATE_LIMIT_WINDOW_SECONDS: '0' }, /^Invalid configuration: RATE_LIMIT_WINDOW_SECONDS /],
    [{ RATE_LIMIT_WINDOW_SECONDS: '0.5' }, /^Invalid configuration: RATE_LIMIT_WINDOW_SECONDS /],
  ])('names a bad value in one line: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each(['RATE_LIMIT_PER_SECOND', 'RATE_LIMIT_BURST'])(
    'refuses the retired %s, naming the settings that replace it',
    (name) => {
      const load = () => loadConfig({ [name]: '20' });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(
        new RegExp(
          `^Invalid configuration: ${name} .*RATE_LIMIT_REQUESTS.*RATE_LIMIT_WINDOW_SECONDS`,
        ),
      );
    },
  );

  it.each([
    ['npm run cli -- serve', ['src/cli/main.ts', 'serve']],
    ['npm start', ['src/main.ts']],
  ])('`%s` with RATE_LIMIT_BURST set fails at start: one line, exit code 1', async (_, args) => {
    const started = await promisify(execFile)(process.execPath, ['--import', 'tsx', ...args], {
      // A store that does not answer: a server that read past the configuration would fail
      // to connect instead, with another message.
      env: { ...process.env, RATE_LIMIT_BURST: '100', DATABASE_URL: 'postgres://127.0.0.1:1/none' },
      timeout: 60_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(started.code).toBe(1);
    expect(started.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^error: Invalid configuration: RATE_LIMIT_BURST .*RATE_LIMIT_REQUESTS.*RATE_LIMIT_WINDOW_SECONDS/,
      ),
    ]);
  });
});
