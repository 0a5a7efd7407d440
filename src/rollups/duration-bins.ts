import type { BinCounts } from './bin-counts.js';

/**
 * Log-scale duration bins, fine enough that reporting a bin's midpoint is within 1% of any
 * duration in it (the contract allows 2%). Durations are whole milliseconds (stored times have
 * millisecond precision): below 100 ms every millisecond is its own bin, above it each bin is at
 * most 2% wider than its lower bound. Bin `i` holds [LOWER_BOUNDS[i], LOWER_BOUNDS[i + 1]); the
 * last is open-ended. The same bounds place a duration in ingestion (binOf) and in SQL
 * (`width_bucket(ms, LOWER_BOUNDS) - 1` for raw rows), so both agree exactly.
 */
const EXACT_BELOW_MS = 100;
const MAX_BOUND_MS = 10_000_000_000;

/** The Renard R10 series: ten round numbers a decade, the display buckets' edges. */
const R10 = [1, 1.25, 1.6, 2, 2.5, 3.2, 4, 5, 6.3, 8];

function displayEdges(): number[] {
  const edges = new Set<number>([0]);
  for (let decade = 1; decade <= MAX_BOUND_MS; decade *= 10) {
    for (const step of R10) edges.add(Math.round(step * decade));
  }
  return [...edges].filter((edge) => edge <= MAX_BOUND_MS).sort((a, b) => a - b);
}

/** Display bucket edges (0, 1, 2, 3, 4, 5, 6, 8, 10, 13, ...); each is also a bin bound. */
export const DISPLAY_EDGES: readonly number[] = displayEdges();

function lowerBounds(): number[] {
  const bounds = new Set<number>(DISPLAY_EDGES);
  for (let ms = 0; ms < EXACT_BELOW_MS; ms++) bounds.add(ms);
  for (let ms = EXACT_BELOW_MS; ms <= MAX_BOUND_MS; ms += Math.floor(ms * 0.02)) bounds.add(ms);
  return [...bounds].sort((a, b) => a - b);
}

export const LOWER_BOUNDS: readonly number[] = lowerBounds();

/** `'{0,1,...}'::int8[]`: the bounds as an SQL literal, for width_bucket over raw rows. */
export const LOWER_BOUNDS_SQL = `'{${LOWER_BOUNDS.join(',')}}'::int8[]`;

/** The bin of a duration in ms (negative durations count as 0). */
export function binOf(ms: number): number {
  if (ms <= 0) return 0;
  let lo = 0;
  let hi = LOWER_BOUNDS.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (LOWER_BOUNDS[mid]! <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** [from, to) of a bin in ms; the last bin ends at infinity. */
export function binRange(bin: number): { from: number; to: number } {
  return { from: LOWER_BOUNDS[bin]!, to: LOWER_BOUNDS[bin + 1] ?? Number.POSITIVE_INFINITY };
}

/** The value reported for a duration known only to lie in `bin`: its midpoint (whole ms). */
export function binValue(bin: number): number {
  const { from, to } = binRange(bin);
  return Number.isFinite(to) ? (from + to - 1) / 2 : from;
}

export interface DurationBucket {
  readonly fromMs: number;
  readonly toMs: number;
  readonly count: number;
}

/** Bin counts folded into the display buckets, non-empty ones only, ascending. */
export function displayHistogram(bins: BinCounts): DurationBucket[] {
  const counts = new Map<number, number>();
  bins.forEach((bin, count) => {
    const from = LOWER_BOUNDS[bin]!;
    let lo = 0;
    let hi = DISPLAY_EDGES.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (DISPLAY_EDGES[mid]! <= from) lo = mid;
      else hi = mid - 1;
    }
    counts.set(lo, (counts.get(lo) ?? 0) + count);
  });
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, count]) => ({
      fromMs: DISPLAY_EDGES[index]!,
      toMs: DISPLAY_EDGES[index + 1] ?? Number.POSITIVE_INFINITY,
      count,
    }));
}
