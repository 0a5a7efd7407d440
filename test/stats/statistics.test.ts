// test: any-database (what it proves does not depend on the database kind: it runs once, in the last phase)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fisherExactTwoSided } from '../../src/stats/fisher-exact.js';
import { mannWhitneyU } from '../../src/stats/mann-whitney.js';
import { normalUpperTail, twoSidedNormalP } from '../../src/stats/normal.js';
import { judge, median, medianAbsoluteDeviation, robustBand } from '../../src/stats/robust-band.js';
import { fisherByEnumeration, mannWhitneyLongWay, twoSidedPByIntegration } from './reference.js';

const close = (actual: number | null | undefined, expected: number, relative = 1e-9) =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= relative * Math.abs(expected),
    `${actual} is not within ${relative} of ${expected}`,
  );

describe('Fisher exact test, two-sided (src/stats/fisher-exact.ts)', () => {
  it("gives the lady tasting tea's table 3,1,1,3 the published p = 0.4857", () => {
    close(fisherExactTwoSided({ a: 3, b: 1, c: 1, d: 3 }), 0.4857142857142857);
    assert.equal(fisherExactTwoSided({ a: 3, b: 1, c: 1, d: 3 }).toFixed(4), '0.4857');
  });

  it("matches R's fisher.test and SciPy's fisher_exact on reference tables", () => {
    // Reference values from scipy.stats.fisher_exact (the same definition as R's fisher.test).
    const references: Array<[number, number, number, number, number]> = [
      [1, 9, 11, 3, 0.0027594561852200836],
      [10, 40, 25, 25, 0.0030520593364333462],
      [2, 98, 9, 91, 0.058220717580287525],
      [0, 50, 5, 45, 0.05628449442882433],
      [12, 488, 30, 470, 0.00668667624830828],
      [5, 0, 0, 5, 0.007936507936507938],
    ];
    for (const [a, b, c, d, p] of references) close(fisherExactTwoSided({ a, b, c, d }), p, 1e-8);
  });

  it('agrees with an exact enumeration of hypergeometric weights in BigInt', () => {
    const tables: Array<[number, number, number, number]> = [
      [7, 43, 2, 48],
      [30, 70, 12, 88],
      [0, 60, 0, 70],
      [55, 5, 48, 12],
      [3, 197, 14, 186],
      [1, 1, 1, 1],
    ];
    for (const [a, b, c, d] of tables)
      close(fisherExactTwoSided({ a, b, c, d }), fisherByEnumeration(a, b, c, d), 1e-8);
  });

  it('is 1 when the margins leave one table, and refuses negative or fractional counts', () => {
    assert.equal(fisherExactTwoSided({ a: 0, b: 10, c: 0, d: 12 }), 1);
    assert.throws(() => fisherExactTwoSided({ a: -1, b: 1, c: 1, d: 1 }), RangeError);
    assert.throws(() => fisherExactTwoSided({ a: 0.5, b: 1, c: 1, d: 1 }), RangeError);
  });

  it('stays finite and exact enough for a week of executions (large counts)', () => {
    const p = fisherExactTwoSided({ a: 1200, b: 98_800, c: 1350, d: 98_650 });
    assert.ok(p > 0.001 && p < 0.01, String(p));
  });
});

describe('Mann-Whitney U from histogram bins (src/stats/mann-whitney.ts)', () => {
  it('matches SciPy (asymptotic, tie-corrected, no continuity correction) on a textbook sample', () => {
    const x = [1, 1, 2, 2, 2, 3, 5, 5, 8];
    const y = [2, 3, 3, 3, 5, 8, 8, 9, 9, 9, 10];
    const values = [...new Set([...x, ...y])];
    const groups = values.map((value) => ({
      value,
      first: x.filter((v) => v === value).length,
      second: y.filter((v) => v === value).length,
    }));
    const result = mannWhitneyU(groups)!;
    assert.equal(result.u, 19);
    close(result.p, 0.018951080658963327, 1e-9);
  });

  it('treats each bin as one group of ties', () => {
    const groups = [
      { value: 10, first: 30, second: 10 },
      { value: 20, first: 40, second: 40 },
      { value: 30, first: 10, second: 30 },
      { value: 40, first: 0, second: 5 },
    ];
    const result = mannWhitneyU(groups)!;
    assert.equal(result.u, 2000);
    close(result.p, 8.25261643477843e-7, 1e-8);
    const expand = (pick: (g: (typeof groups)[number]) => number) =>
      groups.flatMap((g) => Array<number>(pick(g)).fill(g.value));
    const long = mannWhitneyLongWay(
      expand((g) => g.first),
      expand((g) => g.second),
    );
    assert.equal(result.u, long.u);
    close(result.z, long.z, 1e-12);
    // Bins given in any order.
    assert.equal(mannWhitneyU([...groups].reverse())!.u, 2000);
  });

  it('is null when a sample is empty, and p = 1 when every value ties', () => {
    assert.equal(mannWhitneyU([{ value: 1, first: 5, second: 0 }]), null);
    assert.equal(mannWhitneyU([]), null);
    assert.equal(mannWhitneyU([{ value: 7, first: 5, second: 9 }])!.p, 1);
  });
});

describe('the normal tail (src/stats/normal.ts)', () => {
  it('matches published values of the standard normal', () => {
    close(normalUpperTail(1.96), 0.024997895148220435, 1e-12);
    close(normalUpperTail(0.5), 0.3085375387259869, 1e-12);
    close(normalUpperTail(4.5), 3.3976731247300535e-6, 1e-11);
    close(normalUpperTail(-1), 0.8413447460685429, 1e-12);
    close(normalUpperTail(8), 6.22096057427174e-16, 1e-9);
    close(twoSidedNormalP(-1.96), 0.04999579029644087, 1e-12);
    assert.equal(twoSidedNormalP(0), 1);
    for (const z of [0.3, 1.1, 2.5, 3.7]) close(twoSidedNormalP(z), twoSidedPByIntegration(z), 1e-9);
  });
});

describe('median and MAD baselines (src/stats/robust-band.ts)', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 10]), 3.5);
    assert.equal(median([]), null);
    assert.equal(medianAbsoluteDeviation([1, 2, 3, 4, 100], 3), 1);
  });

  it('scales the MAD by 1.4826 and floors the spread at max(10% of expected, the unit)', () => {
    // Baseline 90, 100, 110, 100: median 100, deviations 10, 0, 10, 0, MAD 5, 1.4826 x 5 = 7.413 < 10.
    const floored = robustBand([90, 100, 110, 100], 3, 1)!;
    assert.deepEqual(floored, { expected: 100, spread: 10, lower: 70, upper: 130 });
    // Two outliers of five: the MAD is 0 and the floor holds the spread at 10% of expected.
    assert.equal(robustBand([40, 100, 160, 100, 100], 2, 1)!.spread, 10);
    // A wide baseline: the scaled MAD wins.
    const spread = robustBand([10, 50, 100, 150, 190], 1, 1)!;
    close(spread.spread, 1.4826 * 50, 1e-12);
    // A zero baseline: the unit floors the spread; lower never goes below 0.
    assert.deepEqual(robustBand([0, 0, 0], 3, 1), { expected: 0, spread: 1, lower: 0, upper: 3 });
    assert.equal(robustBand([], 3, 1), null);
  });

  it('judges a value outside [lower, upper] anomalous, with its direction and score', () => {
    const band = robustBand([100, 100, 100], 3, 1)!;
    assert.deepEqual(judge(131, band), { anomalous: true, direction: 'UP', score: 3.1 });
    assert.deepEqual(judge(130, band), { anomalous: false, direction: 'UP', score: 3 });
    assert.deepEqual(judge(50, band), { anomalous: true, direction: 'DOWN', score: 5 });
  });
});
