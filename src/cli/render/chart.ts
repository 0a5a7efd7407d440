import { DAY } from '../../lib/time.js';
import { formatDuration, formatInstant } from '../time-input.js';
import type { Palette } from './colors.js';

export interface ActivityBucket {
  readonly from: string;
  readonly to: string;
  readonly successCount: number;
  readonly failureCount: number;
}

export interface ChartOptions {
  /** Columns of the widest bar (the busiest bucket). */
  readonly barWidth?: number;
  /** Columns of the widest failure-rate bar (the highest rate). */
  readonly rateWidth?: number;
  /** Buckets that end after this instant are still filling up (epoch ms). */
  readonly now?: number;
}

const SUCCESS = '█';
const FAILURE = '▒';
const RATE = '■';

/** Cells of a bar for `count` out of `max` in `width` columns; a non-zero count gets at least one. */
export function barCells(count: number, max: number, width: number): number {
  return count === 0 || max === 0 ? 0 : Math.max(1, Math.round((count / max) * width));
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

/**
 * Success and failure per bucket as stacked horizontal bars (one row per bucket, oldest first,
 * scaled to the busiest bucket), each bucket's failure rate as a number and a second bar scaled
 * to the highest rate (so that a rise shows however busy the buckets are), a mark on a bucket
 * still in progress, then a legend with the totals. The glyphs differ as well as the colours, so
 * the chart reads the same without colour.
 */
export function renderActivityChart(
  buckets: readonly ActivityBucket[],
  p: Palette,
  { barWidth = 40, rateWidth = 10, now = Date.now() }: ChartOptions = {},
): string {
  if (buckets.length === 0) return p.dim('no buckets in this range');
  const finished = (b: ActivityBucket) => b.successCount + b.failureCount;
  const rateOf = (b: ActivityBucket) => (finished(b) === 0 ? undefined : b.failureCount / finished(b));
  const max = Math.max(1, ...buckets.map(finished));
  const maxRate = Math.max(0, ...buckets.map((b) => rateOf(b) ?? 0));
  const daily = Date.parse(buckets[0]!.to) - Date.parse(buckets[0]!.from) >= DAY;
  const label = (b: ActivityBucket) => formatInstant(b.from).slice(0, daily ? 10 : 16);
  const okWidth = Math.max(...buckets.map((b) => String(b.successCount).length));
  const failedWidth = Math.max(...buckets.map((b) => String(b.failureCount).length));
  const rows = buckets.map((b) => {
    const ok = barCells(b.successCount, max, barWidth);
    const failed = barCells(b.failureCount, max, barWidth);
    const bar = p.green(SUCCESS.repeat(ok)) + p.red(FAILURE.repeat(failed));
    const failedText = `${String(b.failureCount).padStart(failedWidth)} failed`;
    const counts = `${String(b.successCount).padStart(okWidth)} ok  ${b.failureCount ? p.red(failedText) : p.dim(failedText)}`;
    const rate = rateOf(b);
    const rateText = (rate === undefined ? '-' : percent(rate)).padStart(6);
    const rateBar = rate === undefined ? '' : p.red(RATE.repeat(barCells(rate, maxRate, rateWidth)));
    const start = Date.parse(b.from);
    const end = Date.parse(b.to);
    const partial =
      end > now
        ? `  ${p.yellow(`◔ so far: ${formatDuration(Math.max(0, now - start))} of ${formatDuration(end - start)}`)}`
        : '';
    const pad = ' '.repeat(Math.max(0, barWidth + 1 - ok - failed));
    const ratePad = partial
      ? ' '.repeat(Math.max(0, rateWidth - barCells(rate ?? 0, maxRate, rateWidth)))
      : '';
    return `${label(b)}  ${bar}${pad} ${counts}  ${rate && rate > 0 ? p.red(rateText) : rateText} ${rateBar}${ratePad}${partial}`.trimEnd();
  });
  const success = buckets.reduce((n, b) => n + b.successCount, 0);
  const failure = buckets.reduce((n, b) => n + b.failureCount, 0);
  const rate = success + failure ? `${percent(failure / (success + failure))} failed` : 'no executions';
  const legend = [
    `${p.green(SUCCESS)} success  ${p.red(FAILURE)} failure   ${success + failure} finished: ${success} ok, ${failure} failed (${rate})`,
    maxRate > 0
      ? `${p.red(RATE)} failure rate of the bucket (failed of finished), the longest bar ${percent(maxRate)}`
      : 'no failures in this range',
  ];
  return [...rows, '', ...legend].join('\n');
}
