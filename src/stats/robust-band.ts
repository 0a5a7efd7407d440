/**
 * Median-and-MAD baselines (contract section 7, "Anomalies"): a robust centre and spread of a
 * handful of past values, and the band of what is expected around it.
 */

/** The median: the middle value, or the mean of the middle two when their number is even. Null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return middle([...values].sort(ascending));
}

const ascending = (a: number, b: number) => a - b;

/** The median of sorted, non-empty `values`. */
function middle(sorted: readonly number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The median absolute deviation of `values` from `centre`. */
export function medianAbsoluteDeviation(values: readonly number[], centre: number): number | null {
  return values.length === 0 ? null : deviationsMedian([...values], centre);
}

/** The median absolute deviation of non-empty `values` from `centre`, computed in `values` (overwritten). */
function deviationsMedian(values: number[], centre: number): number {
  for (let i = 0; i < values.length; i++) values[i] = Math.abs(values[i]! - centre);
  return middle(values.sort(ascending));
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
  if (baseline.length === 0) return null;
  // One copy for both medians (this runs for every point judged).
  const values = [...baseline].sort(ascending);
  const expected = middle(values);
  const mad = deviationsMedian(values, expected);
  const spread = Math.max(MAD_SCALE * mad, 0.1 * Math.abs(expected), unit);
  return {
    expected,
    spread,
    lower: Math.max(0, expected - sensitivity * spread),
    upper: expected + sensitivity * spread,
  };
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
