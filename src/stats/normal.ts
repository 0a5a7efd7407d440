/**
 * The standard normal distribution's upper tail, P(Z > z), to about 1e-14 relative: erfc from a
 * series of positive terms below 3 (no cancellation) and from its continued fraction above.
 */
const SQRT_PI = Math.sqrt(Math.PI);

/** erfc(x) for x >= 0. */
function erfcNonNegative(x: number): number {
  if (x < 3) {
    // erf(x) = 2/sqrt(pi) e^{-x^2} sum_n 2^n x^{2n+1} / (1*3*...*(2n+1))
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return 1 - (2 / SQRT_PI) * Math.exp(-x * x) * sum;
  }
  // erfc(x) = e^{-x^2}/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))), by Lentz's method.
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = x + a * d;
    d = d === 0 ? tiny : 1 / d;
    c = x + a / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / SQRT_PI / f;
}

/** P(Z > z) for a standard normal Z. */
export function normalUpperTail(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  const x = Math.abs(z) / Math.SQRT2;
  const upper = erfcNonNegative(x) / 2;
  return z >= 0 ? upper : 1 - upper;
}

/** Two-sided p-value of a standard normal statistic: P(|Z| >= |z|). */
export const twoSidedNormalP = (z: number): number => Math.min(1, 2 * normalUpperTail(Math.abs(z)));
