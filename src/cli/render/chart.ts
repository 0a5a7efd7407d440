import { DAY } from '../../modules/shared/time.js';
import { formatInstant } from '../time-input.js';
import type { Palette } from './colors.js';

export interface ActivityBucket {
  readonly from: string;
  readonly to: string;
  readonly successCount: number;
  readonly failureCount: number;
}

const SUCCESS = '█';
const FAILURE = '▒';

/** Cells of a bar for `count` out of `max` in `width` columns; a non-zero count gets at least one. */
function cells(count: number, max: number, width: number): number {
  return count === 0 ? 0 : Math.max(1, Math.round((count / max) * width));
}

/**
 * Success and failure per bucket as stacked horizontal bars (one row per bucket, oldest first,
 * scaled to the busiest bucket), then a legend with the totals and the success rate. The glyphs
 * differ as well as the colours, so the chart reads the same without colour.
 */
export function renderActivityChart(buckets: readonly ActivityBucket[], p: Palette, width = 40): string {
  if (buckets.length === 0) return p.dim('no buckets in this range');
  const max = Math.max(1, ...buckets.map((b) => b.successCount + b.failureCount));
  const daily = Date.parse(buckets[0]!.to) - Date.parse(buckets[0]!.from) >= DAY;
  const label = (b: ActivityBucket) => formatInstant(b.from).slice(0, daily ? 10 : 16);
  const okWidth = Math.max(...buckets.map((b) => String(b.successCount).length));
  const rows = buckets.map((b) => {
    const ok = cells(b.successCount, max, width);
    const failed = cells(b.failureCount, max, width);
    const bar = p.green(SUCCESS.repeat(ok)) + p.red(FAILURE.repeat(failed));
    const counts = `${String(b.successCount).padStart(okWidth)} ok  ${b.failureCount ? p.red(`${b.failureCount} failed`) : p.dim('0 failed')}`;
    return `${label(b)}  ${bar}${' '.repeat(Math.max(0, width + 1 - ok - failed))} ${counts}`;
  });
  const success = buckets.reduce((n, b) => n + b.successCount, 0);
  const failure = buckets.reduce((n, b) => n + b.failureCount, 0);
  const rate =
    success + failure ? `${((success / (success + failure)) * 100).toFixed(1)}% success` : 'no executions';
  const legend = `${p.green(SUCCESS)} success  ${p.red(FAILURE)} failure   ${success + failure} finished: ${success} ok, ${failure} failed (${rate})`;
  return [...rows, '', legend].join('\n');
}
