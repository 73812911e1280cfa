import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.ts';

/** The current cursor format. Older versions stay readable while they can be decoded. */
const VERSION = 1;
/** Far longer than any cursor issued (a sort key of a few hundred characters): not decoded. */
const MAX_CURSOR_LENGTH = 4000;

export const invalidCursor = () =>
  new ApiError(
    'invalid_cursor',
    'The cursor does not belong to this list: pass nextCursor back unchanged, with the same filters and sort.',
    { fields: { cursor: 'was issued for another caller, filter set or sort, or was changed' } },
  );

/**
 * Opaque, signed page cursors (docs/contract.md, "Paging and sorting"):
 * `base64url(payload).base64url(hmac)`. The payload holds the format version, a hash binding the
 * cursor to its caller, endpoint, filters and sort, and the sort key of the last row returned
 * (keyset pagination). Anything altered, or used for another binding, is `422 invalid_cursor`: only
 * the exact text issued is accepted, not another spelling of the same bytes.
 */
export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  encode(binding: string, keys: readonly (string | null)[]): string {
    const body = Buffer.from(JSON.stringify({ v: VERSION, b: bindingHash(binding), k: keys }));
    return `${body.toString('base64url')}.${this.sign(body).toString('base64url')}`;
  }

  /** The last row's sort key, or throws invalid_cursor. */
  decode(cursor: string, binding: string): (string | null)[] {
    if (cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor();
    const [bodyText, signatureText, extra] = cursor.split('.');
    if (!bodyText || !signatureText || extra !== undefined) throw invalidCursor();
    const body = exactBase64url(bodyText);
    const signature = exactBase64url(signatureText);
    if (!body || !signature) throw invalidCursor();
    const expected = this.sign(body);
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected))
      throw invalidCursor();
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    if (!isPayload(payload) || payload.v !== VERSION || payload.b !== bindingHash(binding))
      throw invalidCursor();
    return payload.k;
  }

  private sign(body: Buffer): Buffer {
    return createHmac('sha256', this.secret).update(body).digest().subarray(0, 16);
  }
}

/**
 * The bytes of base64url text, only when the text is exactly how they encode. Node's decoder
 * skips characters outside the alphabet (`é`, `=`) and ignores the unused low bits of the
 * last character, so several texts decode to the same bytes; encoding back tells them apart.
 */
function exactBase64url(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

interface Payload {
  v: number;
  b: string;
  k: (string | null)[];
}

function isPayload(value: unknown): value is Payload {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return (
    typeof p.v === 'number' &&
    typeof p.b === 'string' &&
    Array.isArray(p.k) &&
    p.k.every((k) => k === null || typeof k === 'string')
  );
}

function bindingHash(binding: string): string {
  return createHash('sha256').update(binding).digest('base64url').slice(0, 22);
}

/** A stable text for a parsed query: keys sorted at every level, so equal filters bind equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
