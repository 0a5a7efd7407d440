/**
 * The rules of contract section 7, "Anomalies", as plain functions: a bucket's value of each
 * metric, its baseline (the same time of the week in the four weeks before, else the 8 buckets
 * just before), and its point against the band the baseline draws.
 */

import { LRUCache } from 'lru-cache';
import { DAY } from '../../lib/time.js';
import type { AnomalyMetric } from '../../schema/schema-types.generated.js';
import { judge, robustBandIn } from '../../stats/robust-band.js';
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
   * The observed value of `metric` in each bucket read (observedValue of its figures, zero
   * figures when nothing started in it), by the bucket's key in Baselines.starts. A bucket is the
   * baseline of up to 12 others, so each value is computed once.
   */
  valuesOf(metric: AnomalyMetric): ArrayLike<number | null>;
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

/** Starts of every bucket a bucket's baseline may read: four weeks back, then the 8 buckets before. */
export function baselineStarts(start: number, width: number): number[] {
  const starts: number[] = [];
  for (let k = 1; k <= WEEKS_BACK; k++) starts.push(start - k * WEEK);
  for (let j = 1; j <= BUCKETS_BACK; j++) starts.push(start - j * width);
  return starts;
}

/**
 * The buckets judged and every bucket their baselines read, numbered once for a request: each
 * scope's values are arrays by these keys, and a point's baseline is a run of keys, where looking
 * each start up again cost every point a dozen map lookups.
 */
export class Baselines {
  /** Every bucket start read, ascending; a bucket's key is its index here. */
  readonly starts: readonly number[];
  /** Per judged bucket, the keys of its baseline: WEEKS_BACK weekly, then BUCKETS_BACK recent. */
  readonly #keys: Int32Array;
  /** The judged buckets' own keys. */
  readonly #judgedKeys: Int32Array;

  /**
   * Made lately, by first start, count and width (64, the least recently used going first):
   * requests over the same hours share them.
   */
  static readonly #made = new LRUCache<string, Baselines>({ max: 64 });

  /** The baselines of `count` contiguous buckets of `width` from `first`; the same object for the same buckets. */
  static of(first: number, count: number, width: number): Baselines {
    const id = `${first}|${count}|${width}`;
    let made = Baselines.#made.get(id);
    if (made === undefined) {
      made = new Baselines(
        id,
        Array.from({ length: count }, (_, i) => first + i * width),
        width,
      );
      Baselines.#made.set(id, made);
    }
    return made;
  }

  /**
   * @param id names the buckets: their first start, count and width.
   * @param judged the starts of the buckets judged, each `width` long.
   */
  private constructor(
    readonly id: string,
    readonly judged: readonly number[],
    readonly width: number,
  ) {
    const back = judged.map((start) => baselineStarts(start, width));
    this.starts = [...new Set([...judged, ...back.flat()])].sort((a, b) => a - b);
    const keyOf = new Map(this.starts.map((start, key) => [start, key]));
    this.#keys = Int32Array.from(back.flat(), (start) => keyOf.get(start)!);
    this.#judgedKeys = Int32Array.from(judged, (start) => keyOf.get(start)!);
  }

  /**
   * The points of `metric` for the judged buckets at `indexes` (in `judged`), in that order:
   * anomalous when observed lies outside [lower, upper], except an EXECUTIONS bucket that has not
   * ended at `now` (its count is partial). A baseline is the same time of the week in the four
   * weeks before when at least MIN_BASELINE of them have a value, else the 8 buckets just before,
   * else none; counts of a bucket ended before the scope's first execution have none.
   */
  pointsAt(
    indexes: readonly number[],
    metric: AnomalyMetric,
    scope: ScopeFigures,
    sensitivity: number,
    now: number,
  ): Point[] {
    const values = scope.valuesOf(metric);
    const { starts, width } = this;
    const first = metric === 'EXECUTIONS' ? (scope.firstExecution ?? Number.POSITIVE_INFINITY) : null;
    const baseline = new Float64Array(WEEKS_BACK + BUCKETS_BACK);
    /** Puts the values at keys [from, to) of bucket i's baseline into `baseline`: how many. */
    const pick = (i: number, from: number, to: number) => {
      let n = 0;
      for (let k = from; k < to; k++) {
        const key = this.#keys[i * (WEEKS_BACK + BUCKETS_BACK) + k]!;
        if (first !== null && starts[key]! + width <= first) continue;
        const value = values[key];
        if (value !== null && value !== undefined) baseline[n++] = value;
      }
      return n;
    };
    return indexes.map((i) => {
      const start = this.judged[i]!;
      let n = pick(i, 0, WEEKS_BACK);
      if (n < MIN_BASELINE) {
        n = pick(i, WEEKS_BACK, WEEKS_BACK + BUCKETS_BACK);
        if (n < MIN_BASELINE) n = 0;
      }
      const observed = values[this.#judgedKeys[i]!] ?? null;
      const band = robustBandIn(baseline, n, sensitivity, UNIT[metric]);
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
    });
  }

  /** The key of the judged bucket at `i`, and the keys of its baseline's buckets. */
  keysOf(i: number): { readonly judged: number; readonly baseline: Int32Array } {
    const size = WEEKS_BACK + BUCKETS_BACK;
    return { judged: this.#judgedKeys[i]!, baseline: this.#keys.subarray(i * size, (i + 1) * size) };
  }
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
