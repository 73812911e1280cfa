import pg from 'pg';
import type { TokenIdentity } from './token.repository.ts';

/** The channel sql/postgres/0006_auth_change_notify.sql notifies when an identity may change. */
export const AUTH_CHANGE_CHANNEL = 'ledgerline_auth';

/** Identities kept at most; a flood of distinct valid tokens empties the cache rather than grow it. */
const MAX_IDENTITIES = 10_000;
const RECONNECT_MS = { first: 250, max: 10_000 };

/**
 * The identities of the tokens this process has authenticated, kept in memory so that a
 * request costs no query (a PostgreSQL round trip was 1.5 ms of a 10 ms list page, and its
 * slowest 1% took 5-19 ms). Correct only while PostgreSQL tells us of every change: a
 * connection LISTENs on AUTH_CHANGE_CHANNEL, and each notification (a token revoked, a role,
 * plan or workspace changed, any of them deleted) empties the cache. While that connection is
 * not listening (before it is up, after it drops, until it is back) nothing is kept and every
 * lookup reads the store. A lookup that overlapped a notification does not keep what it read.
 *
 * @example
 * const identities = await TokenIdentityCache.listen(pool);
 * const identity = await identities.find(prefix, () => findTokenIdentity(db, prefix));
 * // on shutdown
 * await identities.close();
 */
export class TokenIdentityCache {
  private readonly identities = new Map<string, TokenIdentity>();
  /** Bumped by every notification and every loss of the listening connection. */
  private generation = 0;
  private listener: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private reconnectDelay: number;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly changeWaiters: (() => void)[] = [];

  private constructor(
    private readonly connect: () => pg.Client,
    private readonly onError: (error: unknown) => void,
    private readonly firstReconnectMs: number,
  ) {
    this.reconnectDelay = firstReconnectMs;
  }

  /**
   * A cache listening on a connection of its own (with `pool`'s settings). Resolves once it
   * listens; if the store cannot be reached, it resolves anyway, keeps nothing, and retries:
   * first after `firstReconnectMs`, then twice as long each time, up to 10 s.
   */
  static async listen(
    pool: pg.Pool,
    onError: (error: unknown) => void = () => undefined,
    firstReconnectMs: number = RECONNECT_MS.first,
  ): Promise<TokenIdentityCache> {
    const cache = new TokenIdentityCache(
      () => new pg.Client(pool.options),
      onError,
      firstReconnectMs,
    );
    await cache.startListening();
    return cache;
  }

  /** Whether identities are kept (the listening connection is up). */
  get active(): boolean {
    return this.listening;
  }

  /** The identity of `prefix`: kept, or read by `lookup` (and kept when it is safe to). */
  async find(
    prefix: string,
    lookup: () => Promise<TokenIdentity | undefined>,
  ): Promise<TokenIdentity | undefined> {
    if (this.listening) {
      const kept = this.identities.get(prefix);
      if (kept) return kept;
    }
    const generation = this.generation;
    const identity = await lookup();
    if (identity && this.listening && generation === this.generation) {
      if (this.identities.size >= MAX_IDENTITIES) this.identities.clear();
      this.identities.set(prefix, identity);
    }
    return identity;
  }

  /** Resolves at the next notification (or loss of the connection): for tests. */
  nextChange(): Promise<void> {
    return new Promise((resolve) => this.changeWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.forget();
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
  }

  /** Drops everything kept, and whatever lookup is under way. */
  private forget(): void {
    this.generation++;
    this.identities.clear();
    for (const resolve of this.changeWaiters.splice(0)) resolve();
  }

  private async startListening(): Promise<void> {
    const client = this.connect();
    this.listener = client;
    const lost = (error?: unknown) => {
      if (this.listener !== client) return;
      this.listener = null;
      this.listening = false;
      this.forget();
      if (error) this.onError(error);
      void client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === AUTH_CHANGE_CHANNEL) this.forget();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${AUTH_CHANGE_CHANNEL}`);
    } catch (error) {
      lost(error);
      return;
    }
    if (this.listener !== client) return;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    // Changes made before LISTEN took effect were never seen: start from nothing.
    this.forget();
    this.listening = true;
    this.reconnectDelay = this.firstReconnectMs;
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.max(Math.min(RECONNECT_MS.max, delay * 2), delay);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.closed) void this.startListening();
    }, delay);
    this.reconnectTimer.unref();
  }
}
