/**
 * The rules of contract section 7, "Anomalies", as plain functions: a bucket's value of each
 * metric, its baseline (the same time of the week in the four weeks before, else the 8 buckets
 * just before), and its point against the band the baseline draws.
 */

import { DAY } from '../../lib/time.js';
import type { AnomalyMetric } from '../../schema/schema-types.generated.js';
import { judge, robustBand } from '../../stats/robust-band.js';
import { percentiles } from '../durations/percentiles.js';
import type { BucketFigures } from './anomalies.store.js';

export const WEEK = 7 * DAY;
/** A rate or p95 over fewer finished executions than this is null. */
export const MIN_FINISHED = 20;
/** Weeks back for the baseline, and buckets back for its fallback. */
export const WEEKS_BACK = 4;
export const BUCKETS_BACK = 8;
/** Fewer baseline values than this: the fallback, then no band. */
export const MIN_BASELINE = 3;
export const DEFAULT_SENSITIVITY = 3;

/** The least spread of each metric: 1 execution, 1 percentage point, 1 ms. */
const UNIT: Readonly<Record<AnomalyMetric, number>> = { EXECUTIONS: 1, FAILURE_RATE: 0.01, DURATION_P95: 1 };

/** The values of one scope's buckets, and what the rules need to know about the scope. */
export interface ScopeFigures {
  /**
   * The observed value of `metric` in the bucket starting at `start` (observedValue of its
   * figures, zero figures when nothing started in it). A bucket is the baseline of up to 12
   * others, so callers keep each value once rather than compute a p95 again for each.
   */
  valueAt(metric: AnomalyMetric, start: number): number | null;
  /** When the scope's first execution started; undefined when it has none. */
  readonly firstExecution: number | undefined;
}

/** The observed value of a bucket: null for a rate or p95 over fewer than 20 finished executions. */
export function observedValue(metric: AnomalyMetric, figures: BucketFigures): number | null {
  switch (metric) {
    case 'EXECUTIONS':
      return figures.total;
    case 'FAILURE_RATE':
      return figures.finished < MIN_FINISHED ? null : figures.failures / figures.finished;
    case 'DURATION_P95':
      return figures.durationCount < MIN_FINISHED
        ? null
        : percentiles(figures.bins, [95], { min: figures.minMs ?? 0, max: figures.maxMs ?? 0 })[0];
    default:
      throw new Error(`no metric ${metric as string}`);
  }
}

/** A bucket's value as a baseline: as observed, but counts of a bucket ended before the scope's first execution have none. */
function baselineValue(
  metric: AnomalyMetric,
  scope: ScopeFigures,
  start: number,
  width: number,
): number | null {
  if (
    metric === 'EXECUTIONS' &&
    (scope.firstExecution === undefined || start + width <= scope.firstExecution)
  )
    return null;
  return scope.valueAt(metric, start);
}

/** Starts of every bucket a bucket's baseline may read: four weeks back, then the 8 buckets before. */
export function baselineStarts(start: number, width: number): number[] {
  const starts: number[] = [];
  for (let k = 1; k <= WEEKS_BACK; k++) starts.push(start - k * WEEK);
  for (let j = 1; j <= BUCKETS_BACK; j++) starts.push(start - j * width);
  return starts;
}

/** The baseline values of the bucket at `start`: the same time of the week first, else the buckets just before; null with too few. */
export function baselineOf(
  metric: AnomalyMetric,
  scope: ScopeFigures,
  start: number,
  width: number,
): number[] | null {
  const starts = baselineStarts(start, width);
  const pick = (from: number, to: number) => {
    const values: number[] = [];
    for (let i = from; i < to; i++) {
      const value = baselineValue(metric, scope, starts[i]!, width);
      if (value !== null) values.push(value);
    }
    return values;
  };
  const weekly = pick(0, WEEKS_BACK);
  if (weekly.length >= MIN_BASELINE) return weekly;
  const recent = pick(WEEKS_BACK, starts.length);
  return recent.length >= MIN_BASELINE ? recent : null;
}

export interface Point {
  readonly from: number;
  readonly to: number;
  readonly observed: number | null;
  readonly expected: number | null;
  readonly lower: number | null;
  readonly upper: number | null;
  readonly anomalous: boolean;
  /** When anomalous. */
  readonly direction: 'UP' | 'DOWN' | null;
  readonly score: number | null;
}

/**
 * The point of the bucket [start, start + width): anomalous when observed lies outside
 * [lower, upper], except an EXECUTIONS bucket that has not ended at `now` (its count is partial).
 */
export function pointOf(
  metric: AnomalyMetric,
  scope: ScopeFigures,
  start: number,
  width: number,
  sensitivity: number,
  now: number,
): Point {
  const observed = scope.valueAt(metric, start);
  const baseline = baselineOf(metric, scope, start, width);
  const band = baseline === null ? null : robustBand(baseline, sensitivity, UNIT[metric]);
  const partial = metric === 'EXECUTIONS' && start + width > now;
  const judged = band !== null && observed !== null ? judge(observed, band) : null;
  const anomalous = (judged?.anomalous ?? false) && !partial;
  return {
    from: start,
    to: start + width,
    observed,
    expected: band?.expected ?? null,
    lower: band?.lower ?? null,
    upper: band?.upper ?? null,
    anomalous,
    direction: anomalous ? judged!.direction : null,
    score: anomalous ? judged!.score : null,
  };
}
