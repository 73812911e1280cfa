import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_CHANGE_CHANNEL } from '../../src/tokens/token-identity-cache.ts';
import { revokeToken } from '../../src/tokens/token.repository.ts';
import { apiRequest } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// The app keeps the identities of the tokens it has seen (TokenIdentityCache); PostgreSQL's
// notifications (sql/postgres/0006_auth_change_notify.sql) are what keeps them true.
describe('token identities kept in memory', () => {
  let h: Harness;
  beforeAll(async () => {
    // It listens again 5 s after a loss, not 250 ms: the requests made meanwhile must all find
    // it not listening, however slow the machine (250 ms was sometimes passed within two).
    h = await createHarness({ tokenReconnectMs: 5000 });
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  const me = (token: string) => apiRequest(h.app, { method: 'GET', path: '/me', token });

  /** Store connections taken from the pool while `work` runs. */
  const storeUse = async (work: () => Promise<unknown>) => {
    let taken = 0;
    const count = () => taken++;
    h.pool.on('acquire', count);
    try {
      await work();
    } finally {
      h.pool.off('acquire', count);
    }
    return taken;
  };

  it('answers a token seen before without reading the store', async () => {
    expect(h.tokenIdentities.active).toBe(true);
    expect((await me(TOKENS.admin)).status).toBe(200);
    // The first use also wrote last_used_at; the second, within the minute, touches nothing.
    expect(await storeUse(() => me(TOKENS.admin))).toBe(0);
  });

  it('forgets a token when it is revoked: 401 as soon as the notification arrives', async () => {
    expect((await me(TOKENS.manager)).status).toBe(200);
    const change = h.tokenIdentities.nextChange();
    expect(await revokeToken(h.db, 'MangrPrefix1')).toBe(true);
    await change;
    expect((await me(TOKENS.manager)).status).toBe(401);
  });

  it('sees a new role and a new plan', async () => {
    expect((await me(TOKENS.member)).body.data.role).toBe('MEMBER');
    let change = h.tokenIdentities.nextChange();
    await h.pool.query(`UPDATE members SET role = 'ADMIN' WHERE user_id = $1`, [ids.member]);
    await change;
    expect((await me(TOKENS.member)).body.data.role).toBe('ADMIN');

    change = h.tokenIdentities.nextChange();
    await h.pool.query(`UPDATE workspaces SET plan = 'free'`);
    await change;
    expect((await me(TOKENS.member)).status).toBe(402);
    change = h.tokenIdentities.nextChange();
    await h.pool.query(`UPDATE workspaces SET plan = 'agency'`);
    await change;
    expect((await me(TOKENS.member)).status).toBe(200);
  });

  it('is not told of last_used_at, which servers write once a minute', async () => {
    const listener = new pg.Client(h.pool.options);
    await listener.connect();
    try {
      const seen: string[] = [];
      const barrier = new Promise<void>((resolve) =>
        listener.on('notification', (m) => {
          seen.push(m.payload ?? '');
          if (m.payload === 'barrier') resolve();
        }),
      );
      await listener.query(`LISTEN ${AUTH_CHANGE_CHANNEL}`);
      await h.pool.query(`UPDATE api_tokens SET last_used_at = now()`);
      // Notifications arrive in commit order: anything the update sent comes before this one.
      await h.pool.query(`SELECT pg_notify($1, 'barrier')`, [AUTH_CHANGE_CHANNEL]);
      await barrier;
      expect(seen).toEqual(['barrier']);
    } finally {
      await listener.end();
    }
  });

  it('keeps nothing while it cannot listen, and listens again', async () => {
    expect((await me(TOKENS.owner)).status).toBe(200);
    const lost = h.tokenIdentities.nextChange();
    await h.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND query = $1`,
      [`LISTEN ${AUTH_CHANGE_CHANNEL}`],
    );
    await lost;
    expect(h.tokenIdentities.active).toBe(false);
    // Every request reads the store meanwhile.
    expect(await storeUse(() => me(TOKENS.owner))).toBeGreaterThan(0);
    expect(await storeUse(() => me(TOKENS.owner))).toBeGreaterThan(0);
    const deadline = Date.now() + 30_000;
    while (!h.tokenIdentities.active && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(h.tokenIdentities.active).toBe(true);
    expect((await me(TOKENS.owner)).status).toBe(200);
    expect(await storeUse(() => me(TOKENS.owner))).toBe(0);
  });
});
