/**
 * Seeded pseudo-random numbers for the simulator. Nothing here reads a clock or Math.random, so
 * a seed and a key path always give the same numbers on every machine. Each thing the simulator
 * invents (a workflow, a minute of arrivals, one execution) draws from its own stream, keyed by
 * `randomFor(seed, ...keys)`: the content of any time window can be produced on its own, in any
 * order, and is identical to the same window inside a longer run.
 */

/** A 32-bit hash of text (FNV-1a), used to turn a `--seed` into a number. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** murmur3's finaliser: every input bit affects every output bit. */
function fmix(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combines a seed and integer keys (any safe integer, negative included) into one 32-bit hash. */
export function mixKeys(seed: number, keys: readonly number[]): number {
  let hash = fmix(seed ^ 0x9e3779b9);
  for (const key of keys) {
    const high = Math.floor(key / 0x1_0000_0000);
    hash = fmix(hash ^ fmix((key >>> 0) + 0x632be5ab));
    hash = fmix(hash ^ fmix((high >>> 0) + 0x85157af5));
  }
  return hash;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** sfc32: small, fast, and passes PractRand; state seeded through splitmix-style mixing. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /**
   * Three independent 32-bit words of state: seeded from one word only, a million generators
   * (one per execution) would share states by the birthday bound and repeat their uuids.
   */
  constructor(seed: number, seed2 = seed ^ 0x5bd1e995, seed3 = seed ^ 0x1b873593) {
    this.a = fmix(seed + 0x9e3779b9);
    this.b = fmix(seed2 + 0x3c6ef372);
    this.c = fmix(seed3 + 0xdaa66d2b);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 0x1_0000_0000;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform in [min, max). */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** Uniform integer in [min, max]. */
  intBetween(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** One of `items`, each as likely as its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of items) total += weight;
    let point = this.next() * total;
    for (const [item, weight] of items) {
      point -= weight;
      if (point < 0) return item;
    }
    return items[items.length - 1]![0];
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** Log-normal around `median`: most values near it, a long tail above. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Poisson-distributed count: exact (Knuth) for small means, normal approximation above 30. */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let count = 0;
    let product = this.next();
    while (product > limit) {
      count++;
      product *= this.next();
    }
    return count;
  }

  /** `length` lower-case hex digits (length even). */
  hex(length: number): string {
    let out = '';
    while (out.length < length) {
      const word = this.uint32();
      out += HEX[word & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[(word >>> 16) & 0xff]! + HEX[word >>> 24]!;
    }
    return out.length === length ? out : out.slice(0, length);
  }

  /** A version 4 uuid. */
  uuid(): string {
    const hex = this.hex(32);
    const variant = '89ab'[this.uint32() & 3];
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`;
  }

  base58(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += BASE58[this.int(58)];
    return out;
  }
}

/** The stream of one simulated thing, named by integer keys under the run's seed. */
export function randomFor(seed: number, ...keys: number[]): Random {
  return new Random(mixKeys(seed, keys), mixKeys(seed ^ 0x2545f491, keys), mixKeys(seed ^ 0x6c8e9cf5, keys));
}
