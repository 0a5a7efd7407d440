/** Searches in ascending arrays of numbers. */

/** The index of the first item of ascending `sorted` at or above `value` (its length when none is). */
export function firstAtOrAbove(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
