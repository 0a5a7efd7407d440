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

/** Relative weight past which a walk stops (see fisherExactTwoSided). */
const NEGLIGIBLE = 1e-20;

/**
 * Fisher's exact test, two-sided: the probability, with the margins fixed, of every table as
 * probable as the observed one or less (the hypergeometric point probabilities summed, as R's
 * `fisher.test` and SciPy's `fisher_exact` do). Each table's probability is taken relative to the
 * most probable one, walking out from it by the ratio of neighbouring probabilities (a log-gamma
 * per term made it a third of a deployment impact page's server time). A walk stops once its
 * tables weigh too little to change either sum: the probabilities fall faster than geometrically
 * away from the mode (the distribution is log-concave), so the rest of a side weighs less than a
 * few times the last table. With a week of executions on each side that is some hundred tables
 * a side, where walking to the margins' ends took thousands.
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
  /** P(X = x + 1) / P(X = x) for X ~ Hypergeometric(n, col1, row1). */
  const up = (x: number) => ((row1 - x) * (col1 - x)) / ((x + 1) * (row2 - col1 + x + 1));
  // The mode of the hypergeometric distribution, where the relative probabilities are 1.
  const mode = Math.min(hi, Math.max(lo, Math.floor(((row1 + 1) * (col1 + 1)) / (n + 2))));
  let observed = 1;
  for (let x = mode; x < a; x++) observed *= up(x);
  for (let x = mode; x > a; x--) observed /= up(x - 1);
  const threshold = observed * RELATIVE_TOLERANCE;
  // Tables lighter than this change neither the total (at least 1) nor the tables as probable as
  // the observed one or less (at least `observed`) by a double's precision.
  const negligible = Math.min(1, observed) * NEGLIGIBLE;
  let total = 1;
  let extreme = 1 <= threshold ? 1 : 0;
  const add = (weight: number) => {
    total += weight;
    if (weight <= threshold) extreme += weight;
    return weight > negligible;
  };
  for (let x = mode, weight = 1; x < hi; x++) {
    weight *= up(x);
    if (!add(weight)) break;
  }
  for (let x = mode, weight = 1; x > lo; x--) {
    weight /= up(x - 1);
    if (!add(weight)) break;
  }
  return Math.min(1, extreme / total);
}
