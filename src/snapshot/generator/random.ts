/**
 * Seeded pseudo-random numbers for the workspace generator: xoshiro128** seeded through
 * splitmix64. A (seed, stream) pair always yields the same sequence on every platform, so
 * a generated workspace is byte-identical for the same options. Never Math.random().
 */

const MASK_64 = (1n << 64n) - 1n;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** splitmix64, the seeding generator recommended by the xoshiro authors. */
function splitmix64(state: bigint): { state: bigint; value: bigint } {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK_64;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK_64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK_64;
  return { state: next, value: z ^ (z >> 31n) };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** `stream` separates independent sequences of one seed (entries, bills, invoices...). */
  constructor(seed: number, stream: number) {
    let state = BigInt.asUintN(64, BigInt(seed)) ^ BigInt.asUintN(64, BigInt(stream) << 40n);
    const words: number[] = [];
    for (let i = 0; i < 2; i++) {
      const step = splitmix64(state);
      state = step.state;
      words.push(Number(step.value >> 32n), Number(step.value & 0xffffffffn));
    }
    const [a = 0, b = 0, c = 0, d = 0] = words;
    // xoshiro's state must not be all zero; splitmix64 makes that practically impossible.
    this.a = a | 0 || 1;
    this.b = b | 0;
    this.c = c | 0;
    this.d = d | 0;
  }

  /** Next unsigned 32-bit integer. */
  next(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Index into `weights` chosen in proportion to the weights. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** A lowercase version-4-shaped UUID. */
  uuid(): string {
    return formatUuid(this.next(), this.uuidWord1(), this.uuidWord2(), this.next());
  }

  /** The four 32-bit words of a version-4 UUID, written into `into` at `offset`. */
  uuidWords(into: Uint32Array, offset: number): void {
    into[offset] = this.next();
    into[offset + 1] = this.uuidWord1();
    into[offset + 2] = this.uuidWord2();
    into[offset + 3] = this.next();
  }

  /** `length` base62 characters, each uniform (rejection sampling, no modulo bias). */
  base62(length: number): string {
    let text = '';
    while (text.length < length) {
      const v = this.next() >>> 26;
      if (v < 62) text += BASE62[v];
    }
    return text;
  }

  // Version nibble 4 in the third group; variant bits 10 in the fourth (RFC 9562).
  private uuidWord1(): number {
    return ((this.next() & 0xffff0fff) | 0x00004000) >>> 0;
  }

  private uuidWord2(): number {
    return ((this.next() & 0x3fffffff) | 0x80000000) >>> 0;
  }
}

// UUID text is assembled in a scratch buffer and read back as one flat string: a string
// concatenated from 20 pieces would cost far more when the output is encoded.
const uuidScratch = Buffer.alloc(36, '-');
const HEX_CODES = new TextEncoder().encode(HEX_BYTE.join(''));

function putHex(at: number, word: number, bytes: number): void {
  for (let i = 0; i < bytes; i++) {
    const code = ((word >>> ((bytes - 1 - i) * 8)) & 255) * 2;
    uuidScratch[at + i * 2] = HEX_CODES[code] ?? 0;
    uuidScratch[at + i * 2 + 1] = HEX_CODES[code + 1] ?? 0;
  }
}

/** Formats four 32-bit words as a UUID string (8-4-4-4-12 lowercase hex). */
export function formatUuid(w0: number, w1: number, w2: number, w3: number): string {
  putHex(0, w0, 4);
  putHex(9, w1 >>> 16, 2);
  putHex(14, w1, 2);
  putHex(19, w2 >>> 16, 2);
  putHex(24, w2, 2);
  putHex(28, w3, 4);
  return uuidScratch.toString('latin1', 0, 36);
}
