import type { BinCounts } from '../../rollups/bin-counts.js';
import { binValue } from '../../rollups/duration-bins.js';

/**
 * Nearest-rank percentiles (each `p` in 0..100) of durations known by their bins: the value of
 * the bin holding the ceil(p% x n)-th smallest duration, clamped to the exact min and max when
 * they are known. Within 1% of the exact value (duration-bins.ts), but for durations in the last,
 * open-ended bin (over 10^10 ms, 115 days) when the max is not known; with the extremes, the 0th
 * and 100th are the exact min and max. The non-empty bins are listed once, in order, for all of
 * `ps`. Null for each when there are no durations.
 */
export function percentiles<const P extends readonly number[]>(
  bins: BinCounts,
  ps: P,
  extremes: { min: number; max: number } | null,
): { [K in keyof P]: number | null } {
  const ascending: number[] = [];
  const counts: number[] = [];
  let total = 0;
  bins.forEach((bin, n) => {
    if (n <= 0) return;
    ascending.push(bin);
    counts.push(n);
    total += n;
  });
  return ps.map((p) => {
    if (total === 0) return null;
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    if (extremes !== null && rank === 1) return extremes.min;
    if (extremes !== null && rank === total) return extremes.max;
    let seen = 0;
    for (let i = 0; i < ascending.length; i++) {
      seen += counts[i]!;
      if (seen < rank) continue;
      const value = binValue(ascending[i]!);
      return extremes === null ? value : Math.min(extremes.max, Math.max(extremes.min, value));
    }
    return extremes === null ? binValue(ascending.at(-1)!) : extremes.max;
  }) as { [K in keyof P]: number | null };
}
