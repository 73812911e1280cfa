import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { TokenEnv } from '../store/schema.ts';

/** Brand marker of every token (docs/contract.md, "Tokens"). */
export const TOKEN_MARKER = 'tt';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_TEXT = /^tt_(live|test)_([0-9A-Za-z]{12})_([0-9A-Za-z]{32})$/;

export interface ParsedToken {
  env: TokenEnv;
  prefix: string;
  secret: string;
}

/** Splits `tt_<env>_<prefix12>_<secret32>`; undefined for anything else. */
export function parseToken(text: string): ParsedToken | undefined {
  const match = TOKEN_TEXT.exec(text);
  if (!match) return undefined;
  const [, env, prefix, secret] = match;
  return { env: env as TokenEnv, prefix: prefix!, secret: secret! };
}

/** SHA-256 of the secret: the only form in which a secret is stored. 190 bits of entropy need no slow hash. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedSha256: Buffer): boolean {
  const presented = hashSecret(secret);
  return presented.length === storedSha256.length && timingSafeEqual(presented, storedSha256);
}

/** A new token with a uniformly random prefix and secret (crypto RNG, no modulo bias). */
export function mintToken(env: TokenEnv): ParsedToken & { token: string } {
  const prefix = randomBase62(12);
  const secret = randomBase62(32);
  return { env, prefix, secret, token: `${TOKEN_MARKER}_${env}_${prefix}_${secret}` };
}

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}
