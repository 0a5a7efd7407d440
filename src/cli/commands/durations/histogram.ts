import { barCells } from '../../render/chart.js';
import type { Palette } from '../../render/colors.js';
import { formatDuration } from '../../time-input.js';
import type { Durations } from './main.js';

type Bucket = Durations['stats']['histogram'][number];

const BAR = '█';

const range = (b: Bucket) => `${formatDuration(b.fromMs)} – ${formatDuration(b.toMs)}`;

/**
 * One row per non-empty bucket, shortest durations first: its range (from inclusive, to
 * exclusive), a bar scaled to the fullest bucket, the count and its share. Empty buckets between
 * two rows show as `⋮`, so that a gap in the distribution stays visible.
 */
export function renderHistogram(buckets: readonly Bucket[], p: Palette, barWidth: number): string {
  const total = buckets.reduce((sum, b) => sum + b.count, 0);
  const max = Math.max(0, ...buckets.map((b) => b.count));
  const labelWidth = Math.max(...buckets.map((b) => range(b).length));
  const countWidth = Math.max(...buckets.map((b) => String(b.count).length));
  const rows: string[] = [];
  buckets.forEach((b, i) => {
    if (i > 0 && buckets[i - 1]!.toMs !== b.fromMs) rows.push(p.dim(`${' '.repeat(labelWidth - 1)}⋮`));
    const cells = barCells(b.count, max, barWidth);
    const share = `${((b.count / total) * 100).toFixed(1)}%`.padStart(6);
    rows.push(
      `${range(b).padStart(labelWidth)}  ${p.cyan(BAR.repeat(cells))}${' '.repeat(barWidth - cells)}  ${String(b.count).padStart(countWidth)} ${p.dim(share)}`,
    );
  });
  return rows.join('\n');
}
