/** Eight heights; a zero is a dot, so that an empty bucket never looks like a small one. */
const LEVELS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;
const ZERO = '·';

/**
 * Counts as one character each, scaled to `max` (by default the largest count): any non-zero
 * count shows at least the lowest bar and only `max` reaches the highest.
 */
export function sparkline(counts: readonly number[], max = Math.max(0, ...counts)): string {
  return counts
    .map((count) => {
      if (count <= 0 || max <= 0) return ZERO;
      const level = Math.ceil((Math.min(count, max) / max) * LEVELS.length) - 1;
      return LEVELS[Math.max(0, level)];
    })
    .join('');
}

/**
 * Adjacent counts summed `size` at a time, the fewest per group that leaves at most `width`
 * groups (the last group may hold fewer). Returns the sums and the group size.
 */
export function foldCounts(counts: readonly number[], width: number): { sums: number[]; size: number } {
  const size = Math.max(1, Math.ceil(counts.length / Math.max(1, width)));
  const sums: number[] = [];
  for (let i = 0; i < counts.length; i += size)
    sums.push(counts.slice(i, i + size).reduce((total, count) => total + count, 0));
  return { sums, size };
}
