/**
 * Deployment impact's rules (contract section 7, "Deployment impact") as plain functions of what
 * the store read: the two windows of a deployment, the figures of each side, and the verdict.
 */

import { DAY } from '../../lib/time.js';
import type { BinCounts } from '../../rollups/bin-counts.js';
import type { DeploymentVerdict } from '../../schema/schema-types.generated.js';
import { fisherExactTwoSided } from '../../stats/fisher-exact.js';
import { mannWhitneyU } from '../../stats/mann-whitney.js';
import { percentiles } from '../durations/percentiles.js';
import type { SideFigures } from './deployment-impact.store.js';

/** Each side lasts at most this long. */
export const SIDE_CAP_MS = 7 * DAY;
/** Fewer finished executions than this on either side: INSUFFICIENT_DATA. */
export const MIN_FINISHED = 50;
/** A change is significant below this p-value. */
export const SIGNIFICANCE = 0.01;
/** The least relative change of the median duration that counts. */
export const MEDIAN_CHANGE = 0.2;
/** Rounding of the ratio of two medians (1.2 - 1 is 0.19999999999999996 in binary). */
const RATIO_TOLERANCE = 1e-12;

export interface Span {
  readonly from: number;
  readonly to: number;
}

/**
 * `after` = [deployedAt, min(next, deployedAt + 7 days, now)), `before` = [max(previous,
 * deployedAt - 7 days), deployedAt). A deployment dated in the future has an empty `after`.
 */
export function sidesOf(
  deployedAt: number,
  previous: number | null,
  next: number | null,
  now: number,
): { before: Span; after: Span } {
  const afterTo = Math.min(next ?? Number.POSITIVE_INFINITY, deployedAt + SIDE_CAP_MS, now);
  return {
    before: {
      from: Math.max(previous ?? Number.NEGATIVE_INFINITY, deployedAt - SIDE_CAP_MS),
      to: deployedAt,
    },
    after: { from: deployedAt, to: Math.max(deployedAt, afterTo) },
  };
}

export interface SideSummary {
  readonly executions: number;
  readonly failures: number;
  readonly failureRate: number | null;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
}

export function summarize(figures: SideFigures): SideSummary {
  const [p50Ms, p95Ms] =
    figures.durationCount === 0
      ? [null, null]
      : percentiles(figures.bins, [50, 95], { min: figures.minMs ?? 0, max: figures.maxMs ?? 0 });
  return {
    executions: figures.executions,
    failures: figures.failures,
    failureRate: figures.executions === 0 ? null : figures.failures / figures.executions,
    p50Ms,
    p95Ms,
  };
}

/** Bins of two samples side by side, each bin one group of ties. */
function tieGroups(first: BinCounts, second: BinCounts) {
  const groups = new Map<number, { value: number; first: number; second: number }>();
  first.forEach((bin, count) => {
    groups.set(bin, { value: bin, first: count, second: 0 });
  });
  second.forEach((bin, count) => {
    const group = groups.get(bin) ?? { value: bin, first: 0, second: 0 };
    groups.set(bin, { ...group, second: group.second + count });
  });
  return [...groups.values()];
}

export interface Comparison {
  readonly verdict: DeploymentVerdict;
  readonly failureRateChange: number | null;
  readonly failureRatePValue: number | null;
  readonly durationChange: number | null;
  readonly durationPValue: number | null;
}

export function compare(
  before: SideFigures,
  after: SideFigures,
  beforeSummary: SideSummary,
  afterSummary: SideSummary,
): Comparison {
  const bothFinished = before.executions > 0 && after.executions > 0;
  const failureRateChange = bothFinished ? afterSummary.failureRate! - beforeSummary.failureRate! : null;
  const failureRatePValue = bothFinished
    ? fisherExactTwoSided({
        a: after.failures,
        b: after.executions - after.failures,
        c: before.failures,
        d: before.executions - before.failures,
      })
    : null;
  const bothTimed = beforeSummary.p50Ms !== null && afterSummary.p50Ms !== null && before.durationCount > 0;
  const durationChange =
    bothTimed && beforeSummary.p50Ms! > 0 ? afterSummary.p50Ms! / beforeSummary.p50Ms! - 1 : null;
  const durationPValue = bothTimed ? (mannWhitneyU(tieGroups(after.bins, before.bins))?.p ?? null) : null;
  return {
    verdict: verdictOf(before.executions, after.executions, {
      failureRateChange,
      failureRatePValue,
      durationChange,
      durationPValue,
    }),
    failureRateChange,
    failureRatePValue,
    durationChange,
    durationPValue,
  };
}

function verdictOf(
  beforeFinished: number,
  afterFinished: number,
  c: Omit<Comparison, 'verdict'>,
): DeploymentVerdict {
  if (beforeFinished < MIN_FINISHED || afterFinished < MIN_FINISHED) return 'INSUFFICIENT_DATA';
  const rateSignificant = c.failureRatePValue !== null && c.failureRatePValue < SIGNIFICANCE;
  const durationSignificant = c.durationPValue !== null && c.durationPValue < SIGNIFICANCE;
  const rateRose = rateSignificant && c.failureRateChange! > 0;
  const rateFell = rateSignificant && c.failureRateChange! < 0;
  const medianRose =
    durationSignificant && c.durationChange !== null && c.durationChange >= MEDIAN_CHANGE - RATIO_TOLERANCE;
  const medianFell =
    durationSignificant && c.durationChange !== null && c.durationChange <= -MEDIAN_CHANGE + RATIO_TOLERANCE;
  if (rateRose || medianRose) return 'REGRESSED';
  if (rateFell || medianFell) return 'IMPROVED';
  return 'NO_CHANGE';
}
