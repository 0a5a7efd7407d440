import { binValue } from '../../rollups/duration-bins.js';

/**
 * Nearest-rank percentiles (each `p` in 0..100) of durations known by their bins: the value of
 * the bin holding the ceil(p% x n)-th smallest duration, clamped to the exact min and max. Within
 * 1% of the exact value (duration-bins.ts); the 0th and 100th are the exact min and max. The bins
 * are sorted once for all of `ps`. Null for each when there are no durations.
 */
export function percentiles<const P extends readonly number[]>(
  bins: ReadonlyMap<number, number>,
  ps: P,
  extremes: { min: number; max: number },
): { [K in keyof P]: number | null } {
  const sorted = [...bins.entries()].filter(([, n]) => n > 0).sort(([a], [b]) => a - b);
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  return ps.map((p) => {
    if (total === 0) return null;
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    if (rank === 1) return extremes.min;
    if (rank === total) return extremes.max;
    let seen = 0;
    for (const [bin, n] of sorted) {
      seen += n;
      if (seen >= rank) return Math.min(extremes.max, Math.max(extremes.min, binValue(bin)));
    }
    return extremes.max;
  }) as { [K in keyof P]: number | null };
}
