import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, TokenUseRecorder } from '../../src/tokens/token.repository.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { smallSnapshot, tinySnapshot, TOKENS } from '../support/small-snapshot.ts';

const FREE_TOKEN = 'tt_test_FreePlanTok1_abcdefghijklmnopqrstuvwxyz012345';
const STUDIO_TOKEN = 'tt_test_StudioPlanT1_abcdefghijklmnopqrstuvwxyz012345';

describe('authentication and access (docs/contract.md, "Tokens", "Plans and roles")', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    await h.importObject(tinySnapshot(1, 'free', FREE_TOKEN));
    await h.importObject(tinySnapshot(2, 'studio', STUDIO_TOKEN));
    await h.sync();
  });
  afterAll(() => h.close());

  const lastUsed = async (prefix: string) =>
    (
      await h.pool.query<{ last_used_at: Date | null }>(
        'SELECT last_used_at FROM api_tokens WHERE prefix = $1',
        [prefix],
      )
    ).rows[0]!.last_used_at;

  const get = (url: string, token?: string) =>
    h.app.inject({
      method: 'GET',
      url,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  it('answers /me for a valid token', async () => {
    const res = await get('/api/v1/me', TOKENS.owner);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        orgId: '10000000-0000-4000-8000-000000000001',
        orgName: 'Small Studio',
        userId: '20000000-0000-4000-8000-000000000001',
        role: 'OWNER',
        plan: 'agency',
        scopes: ['read', 'write'],
        env: 'test',
        tokenPrefix: 'OwnerPrefix1',
      },
    });
  });

  it.each([
    ['missing', undefined],
    ['malformed', 'not-a-token'],
    ['malformed marker', 'xx_test_OwnerPrefix1_abcdefghijklmnopqrstuvwxyz012345'],
    ['unknown prefix', 'tt_test_UnknownPrefx_abcdefghijklmnopqrstuvwxyz012345'],
    ['wrong secret', 'tt_test_OwnerPrefix1_abcdefghijklmnopqrstuvwxyz012346'],
    ['revoked', TOKENS.revoked],
    ['of the other environment', TOKENS.live],
  ])('answers 401 unauthenticated for a %s token', async (_case, token) => {
    const res = await get('/api/v1/me', token);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthenticated');
  });

  it('answers 401 for a token sent without the Bearer scheme', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { authorization: TOKENS.owner },
    });
    expect(res.statusCode).toBe(401);
  });

  it('answers 402 forbidden_plan on a plan without API access', async () => {
    const res = await get('/api/v1/me', FREE_TOKEN);
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toMatchObject({
      code: 'forbidden_plan',
      requiredPlan: 'studio',
      feature: 'api',
    });
  });

  it('checks the plan before the role: a free-plan Owner gets 402 on the summary', async () => {
    expect((await get('/api/v1/team-payouts/summary', FREE_TOKEN)).statusCode).toBe(402);
  });

  it.each([
    ['Member', TOKENS.member],
    ['Manager', TOKENS.manager],
    ['write-only Owner', TOKENS.writeOnly],
  ])('answers 403 forbidden_scope to a %s on the payout summary', async (_who, token) => {
    const res = await get('/api/v1/team-payouts/summary', token);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden_scope');
  });

  it('answers 402 for the payout summary on the studio plan (Agency feature)', async () => {
    const res = await get('/api/v1/team-payouts/summary', STUDIO_TOKEN);
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toMatchObject({
      code: 'forbidden_plan',
      requiredPlan: 'agency',
      feature: 'team_payouts',
    });
  });

  it('serves the summary to an Owner and a read-only Admin, canManage only with write scope', async () => {
    const owner = await get('/api/v1/team-payouts/summary', TOKENS.owner);
    const admin = await get('/api/v1/team-payouts/summary', TOKENS.admin);
    expect(owner.statusCode).toBe(200);
    expect(admin.statusCode).toBe(200);
    expect(owner.json().data.canManage).toBe(true);
    expect(admin.json().data.canManage).toBe(false);
  });

  it('puts the same request id in the header and the error body', async () => {
    const res = await get('/api/v1/me');
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.json().error.requestId).toBe(res.headers['x-request-id']);
  });

  it('answers an unknown route with the error envelope', async () => {
    const res = await get('/api/v1/nothing-here', TOKENS.owner);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'not_found' });
  });

  it('refuses unknown and repeated query parameters on team payouts', async () => {
    const unknown = await get('/api/v1/team-payouts/summary?colour=red', TOKENS.owner);
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({
      code: 'invalid_query',
      fields: { colour: expect.any(String) },
    });
    const repeated = await get(
      '/api/v1/team-payouts/summary?currency=EUR&currency=USD',
      TOKENS.owner,
    );
    expect(repeated.statusCode).toBe(422);
    expect(repeated.json().error.fields).toHaveProperty('currency');
  });

  it('answers a bad currency value with validation_failed', async () => {
    const res = await get('/api/v1/team-payouts/summary?currency=EURO', TOKENS.owner);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('validation_failed');
  });

  it("records a token's use in last_used_at", async () => {
    const { token, prefix } = await createToken(h.db, {
      workspaceId: '10000000-0000-4000-8000-000000000001',
      userId: '20000000-0000-4000-8000-000000000001',
      scopes: ['read'],
      env: 'test',
    });
    expect(await lastUsed(prefix)).toBeNull();
    expect((await get('/api/v1/me', token)).statusCode).toBe(200);
    // The write follows the answer; give it a moment.
    await expect.poll(async () => (await lastUsed(prefix)) !== null, { timeout: 5000 }).toBe(true);
  });

  it('writes last_used_at at most once a minute per token', async () => {
    let now = Date.parse('2026-03-01T10:00:00Z');
    await h.pool.query("UPDATE api_tokens SET last_used_at = NULL WHERE prefix = 'RevokPrefix1'");
    const uses = new TokenUseRecorder(h.db, () => now);
    await uses.record('RevokPrefix1');
    expect(await lastUsed('RevokPrefix1')).toEqual(new Date(now));
    const first = now;
    now += 59_000;
    await uses.record('RevokPrefix1');
    expect(await lastUsed('RevokPrefix1')).toEqual(new Date(first));
    now += 2_000;
    await uses.record('RevokPrefix1');
    expect(await lastUsed('RevokPrefix1')).toEqual(new Date(now));
  });

  it('sends no query for a use within the minute (the process remembers its last write)', async () => {
    let now = Date.parse('2026-03-01T10:00:00Z');
    const uses = new TokenUseRecorder(h.db, () => now);
    await uses.record('RevokPrefix1');
    // Were the UPDATE sent, its `last_used_at IS NULL` branch would write this row again.
    await h.pool.query("UPDATE api_tokens SET last_used_at = NULL WHERE prefix = 'RevokPrefix1'");
    now += 30_000;
    await uses.record('RevokPrefix1');
    expect(await lastUsed('RevokPrefix1')).toBeNull();
  });

  it('carries X-Data-As-Of on GET responses', async () => {
    const res = await get('/api/v1/team-payouts/summary', TOKENS.owner);
    expect(new Date(String(res.headers['x-data-as-of'])).getTime()).toBe(
      h.status.dataAsOf?.getTime(),
    );
  });
});

describe('before the first sync', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
  });
  afterAll(() => h.close());

  it('answers reports with 503 read_model_unavailable, and /me from the store', async () => {
    const headers = { authorization: `Bearer ${TOKENS.owner}` };
    const summary = await h.app.inject({
      method: 'GET',
      url: '/api/v1/team-payouts/summary',
      headers,
    });
    expect(summary.statusCode).toBe(503);
    expect(summary.json().error.code).toBe('read_model_unavailable');
    expect((await h.app.inject({ method: 'GET', url: '/api/v1/me', headers })).statusCode).toBe(
      200,
    );
  });
});
