import { twoSidedNormalP } from './normal.js';

/** One tie group: `value` orders the groups (a histogram bin), the counts say how many of each sample hold it. */
export interface TiedCounts {
  readonly value: number;
  readonly first: number;
  readonly second: number;
}

export interface MannWhitneyResult {
  /** U of the first sample: pairs where its value is greater, ties counting a half. */
  readonly u: number;
  readonly z: number;
  /** Two-sided, from the normal approximation with the tie correction, without continuity correction. */
  readonly p: number;
}

/**
 * The Mann-Whitney U test of two samples known only by how many of each lie in each tie group
 * (a histogram's bins: each bin a group of ties). Ranks are mid-ranks; the variance is corrected
 * for ties: n1 n2 / 12 x ((N + 1) - sum(t^3 - t) / (N (N - 1))). Null when a sample is empty;
 * p = 1 when every value ties (no variance). Costs O(groups).
 */
export function mannWhitneyU(groups: readonly TiedCounts[]): MannWhitneyResult | null {
  const sorted = [...groups].filter((g) => g.first + g.second > 0).sort((x, y) => x.value - y.value);
  let n1 = 0;
  let n2 = 0;
  for (const g of sorted) {
    n1 += g.first;
    n2 += g.second;
  }
  if (n1 === 0 || n2 === 0) return null;
  const total = n1 + n2;
  let below = 0;
  let rankSum = 0;
  let ties = 0;
  for (const g of sorted) {
    const t = g.first + g.second;
    rankSum += g.first * (below + (t + 1) / 2);
    ties += t * t * t - t;
    below += t;
  }
  const u = rankSum - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (total + 1 - ties / (total * (total - 1)));
  if (!(variance > 0)) return { u, z: 0, p: 1 };
  const z = (u - mean) / Math.sqrt(variance);
  return { u, z, p: twoSidedNormalP(z) };
}
