/**
 * Statistics computed the long way, independently of src/stats: exact BigInt enumeration for
 * Fisher's test, pairwise comparison and explicit ranks for Mann-Whitney U. Tests compare the
 * server's figures with these.
 */

/** n choose k exactly. */
function choose(n: number, k: number): bigint {
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

/**
 * Fisher's two-sided p-value of [[a, b], [c, d]] by enumerating every table with its margins and
 * its exact hypergeometric weight C(row1, x) C(row2, col1 - x) (no logarithms, no floating point
 * until the final division).
 */
export function fisherByEnumeration(a: number, b: number, c: number, d: number): number {
  const row1 = a + b;
  const row2 = c + d;
  const col1 = a + c;
  const weight = (x: number) => choose(row1, x) * choose(row2, col1 - x);
  const observed = weight(a);
  let total = 0n;
  let extreme = 0n;
  for (let x = Math.max(0, col1 - row2); x <= Math.min(row1, col1); x++) {
    const w = weight(x);
    total += w;
    if (w <= observed) extreme += w;
  }
  return Number((extreme * 10n ** 18n) / total) / 1e18;
}

/**
 * U of `xs` against `ys` by comparing every pair (ties a half), and the z of the normal
 * approximation with the tie-corrected variance computed from the pooled sample's tie groups.
 */
export function mannWhitneyLongWay(xs: readonly number[], ys: readonly number[]): { u: number; z: number } {
  let u = 0;
  for (const x of xs) for (const y of ys) u += x > y ? 1 : x === y ? 0.5 : 0;
  const counts = new Map<number, number>();
  for (const v of [...xs, ...ys]) counts.set(v, (counts.get(v) ?? 0) + 1);
  const n = xs.length + ys.length;
  let tieSum = 0;
  for (const t of counts.values()) tieSum += t ** 3 - t;
  const sigma = Math.sqrt(((xs.length * ys.length) / 12) * (n + 1 - tieSum / (n * (n - 1))));
  return { u, z: (u - (xs.length * ys.length) / 2) / sigma };
}

/** P(|Z| >= |z|) by integrating the normal density numerically (Simpson's rule), a check independent of erfc. */
export function twoSidedPByIntegration(z: number): number {
  const a = Math.abs(z);
  if (a > 8) return 0;
  const steps = 20_000;
  const h = a / steps;
  const density = (x: number) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
  let sum = density(0) + density(a);
  for (let i = 1; i < steps; i++) sum += density(i * h) * (i % 2 === 0 ? 2 : 4);
  return Math.max(0, 1 - 2 * ((sum * h) / 3));
}
