import { badInput } from '../../errors.js';
import { activityBucketWidth, type Bucket, bucketsCovering, floorTo } from '../../lib/buckets.js';
import { DAY, formatTime, MAX_TIME, MIN_TIME } from '../../lib/time.js';
import type { RollupWindow } from '../../rollups/rollup-reader.store.js';
import type { KeptWindow } from '../../rollups/window-cache.js';
import { halfOpen, instantsWindow, type TimeWindow } from '../../rollups/windows.js';

/** A window of start times in ms, both ends inclusive. */
export interface InclusiveWindow {
  readonly from: number;
  readonly to: number;
  /**
   * Which of its ends are instants the request named, not now: `both` when it gave `to` (`from`
   * is then given or derived from it), `from` when it gave `from` alone. Absent: both move with
   * now.
   */
  readonly fixed?: KeptWindow['fixed'];
}

/**
 * The window of an aggregate: `to` defaults to now and `from` to `to` minus 24 hours; `from`
 * later than `to` (also one in the future against the default `to`) is refused.
 */
export function windowOf(input: { from?: Date | null; to?: Date | null }, now = Date.now()): InclusiveWindow {
  const to = input.to?.getTime() ?? now;
  const from = input.from?.getTime() ?? to - DAY;
  if (from > to) throw badInput('from must not be later than to');
  const fixed = namedEnds(input);
  return fixed === undefined ? { from, to } : { from, to, fixed };
}

/**
 * Which ends of a window the request named: both when it gave `to` (`from` is then given or
 * derived from it), the start when it gave `from` alone; none when both move with now.
 */
function namedEnds(given: { readonly from?: unknown; readonly to?: unknown }): KeptWindow['fixed'] {
  return given.to != null ? 'both' : given.from != null ? 'from' : undefined;
}

/**
 * The rollup window (key 0) of an aggregate's window, over one workflow or (null) the
 * organization: the edges the request named are kept as asked edges (KeptWindow.askedEdges).
 */
export function rollupWindowOf(
  window: InclusiveWindow,
  workflowUuid: string | null,
): RollupWindow & { readonly to: number } {
  return askedWindow(0, halfOpen(window), workflowUuid, window.fixed);
}

/**
 * The rollup window of a list's instants (each optional and inclusive: a filter's `from` and
 * `to`, open where absent), its given edges kept as asked edges (namedEnds).
 */
export function instantsRollupWindow(
  key: number,
  instants: { readonly from?: Date | undefined; readonly to?: Date | undefined },
  workflowUuid: string | null,
): RollupWindow {
  return askedWindow(key, instantsWindow(instants), workflowUuid, namedEnds(instants));
}

/** A rollup window whose `fixed` ends, if any, are edges a request named (KeptWindow.askedEdges). */
const askedWindow = <W extends TimeWindow>(
  key: number,
  window: W,
  workflowUuid: string | null,
  fixed: KeptWindow['fixed'],
): RollupWindow & W => ({
  key,
  ...window,
  workflowUuid,
  ...(fixed !== undefined && { fixed, askedEdges: true }),
});

/** The widest range answered in buckets: about 19 years of 7-day buckets. */
export const MAX_BUCKETS = 1000;

/**
 * The buckets of workflowActivity (and every per-bucket series like it) over [from, to]: their
 * width chosen from the range, aligned to UTC multiples of it. The count is checked by arithmetic
 * before any bucket is made, so a huge range costs nothing to refuse.
 */
export function activityBuckets(window: InclusiveWindow): Bucket[] {
  const width = activityBucketWidth(window.to - window.from);
  const first = floorTo(window.from, width);
  const count = Math.floor((window.to - first) / width) + 1;
  if (count > MAX_BUCKETS) {
    throw badInput(`the range from..to must cover at most ${MAX_BUCKETS} buckets of ${width / DAY} days`);
  }
  if (first < MIN_TIME || first + count * width > MAX_TIME) {
    throw badInput(
      `the buckets of from..to must lie between ${formatTime(new Date(MIN_TIME))} and ${formatTime(new Date(MAX_TIME))}`,
    );
  }
  return bucketsCovering(window.from, window.to, width);
}
