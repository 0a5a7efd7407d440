import { logFactorial } from './log-gamma.js';

/**
 * A 2x2 table of counts:
 *
 *             | outcome | other
 *   group 1   |    a    |   b
 *   group 2   |    c    |   d
 */
export interface TwoByTwo {
  readonly a: number;
  readonly b: number;
  readonly c: number;
  readonly d: number;
}

/** Relative tolerance under which two tables count as equally probable (R's fisher.test: 1 + 1e-7). */
const RELATIVE_TOLERANCE = 1 + 1e-7;

/**
 * Fisher's exact test, two-sided: the probability, with the margins fixed, of every table as
 * probable as the observed one or less (the hypergeometric point probabilities summed, as R's
 * `fisher.test` and SciPy's `fisher_exact` do). Costs O(min(row, column margin)) steps.
 */
export function fisherExactTwoSided({ a, b, c, d }: TwoByTwo): number {
  for (const n of [a, b, c, d])
    if (!Number.isInteger(n) || n < 0) throw new RangeError('counts must be non-negative integers');
  const row1 = a + b;
  const row2 = c + d;
  const col1 = a + c;
  const n = row1 + row2;
  const lo = Math.max(0, col1 - row2);
  const hi = Math.min(row1, col1);
  if (lo === hi) return 1;
  // ln P(X = x) for X ~ Hypergeometric(n, col1, row1), less the constant part.
  const constant =
    logFactorial(row1) + logFactorial(row2) + logFactorial(col1) + logFactorial(n - col1) - logFactorial(n);
  const logP = (x: number) =>
    constant -
    logFactorial(x) -
    logFactorial(row1 - x) -
    logFactorial(col1 - x) -
    logFactorial(row2 - col1 + x);
  const observed = logP(a);
  let max = Number.NEGATIVE_INFINITY;
  for (let x = lo; x <= hi; x++) max = Math.max(max, logP(x));
  let total = 0;
  let extreme = 0;
  const threshold = observed + Math.log(RELATIVE_TOLERANCE);
  for (let x = lo; x <= hi; x++) {
    const l = logP(x);
    const p = Math.exp(l - max);
    total += p;
    if (l <= threshold) extreme += p;
  }
  return Math.min(1, extreme / total);
}
