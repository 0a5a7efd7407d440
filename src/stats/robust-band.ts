/**
 * Median-and-MAD baselines (contract section 7, "Anomalies"): a robust centre and spread of a
 * handful of past values, and the band of what is expected around it.
 */

/** The median: the middle value, or the mean of the middle two when their number is even. Null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return middle(sortAscending(Float64Array.from(values)));
}

/** The median of sorted, non-empty `values`. */
function middle(sorted: ArrayLike<number>): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The median absolute deviation of `values` from `centre`. */
export function medianAbsoluteDeviation(values: readonly number[], centre: number): number | null {
  return values.length === 0 ? null : deviationsMedian(Float64Array.from(values), centre);
}

/** The median absolute deviation of non-empty `values` from `centre`, computed in `values` (overwritten). */
function deviationsMedian(values: Float64Array, centre: number): number {
  for (let i = 0; i < values.length; i++) values[i] = Math.abs(values[i]! - centre);
  return middle(sortAscending(values));
}

/** 1 / Φ⁻¹(3/4): scales the MAD to a normal distribution's standard deviation. */
export const MAD_SCALE = 1.4826;

export interface Band {
  readonly expected: number;
  readonly spread: number;
  readonly lower: number;
  readonly upper: number;
}

/**
 * The band of a baseline: `expected` its median, `spread` 1.4826 x its MAD, at least
 * max(10% of expected, `unit`); lower = max(0, expected - k x spread), upper = expected + k x spread.
 */
export function robustBand(baseline: readonly number[], sensitivity: number, unit: number): Band | null {
  return robustBandIn(Float64Array.from(baseline), baseline.length, sensitivity, unit);
}

/**
 * robustBand of the first `length` values of `values`, computed in place (they are reordered and
 * overwritten): judging reuses one small array for every point's baseline.
 */
export function robustBandIn(
  values: Float64Array,
  length: number,
  sensitivity: number,
  unit: number,
): Band | null {
  if (length === 0) return null;
  const sorted = sortAscending(values.subarray(0, length));
  const expected = middle(sorted);
  const mad = deviationsMedian(sorted, expected);
  const spread = Math.max(MAD_SCALE * mad, 0.1 * Math.abs(expected), unit);
  return {
    expected,
    spread,
    lower: Math.max(0, expected - sensitivity * spread),
    upper: expected + sensitivity * spread,
  };
}

/** Sorts `values` ascending in place, by insertion when few (a baseline holds at most a dozen). */
function sortAscending(values: Float64Array): Float64Array {
  if (values.length > 16) return values.sort();
  for (let i = 1; i < values.length; i++) {
    const value = values[i]!;
    let j = i - 1;
    while (j >= 0 && values[j]! > value) {
      values[j + 1] = values[j]!;
      j--;
    }
    values[j + 1] = value;
  }
  return values;
}

export interface Judged {
  readonly anomalous: boolean;
  readonly direction: 'UP' | 'DOWN';
  /** |observed - expected| / spread. */
  readonly score: number;
}

/** Where an observed value lies against its band: outside [lower, upper] is anomalous. */
export function judge(observed: number, band: Band): Judged {
  return {
    anomalous: observed < band.lower || observed > band.upper,
    direction: observed >= band.expected ? 'UP' : 'DOWN',
    score: Math.abs(observed - band.expected) / band.spread,
  };
}
