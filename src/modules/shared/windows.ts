import { ceilTo, floorTo } from './buckets.js';
import { DAY, HOUR, MINUTE } from './time.js';

/** A window of execution start times: `from` inclusive, `to` exclusive (null: open-ended), in ms. */
export interface TimeWindow {
  readonly from: number;
  readonly to: number | null;
}

/** A piece of a window: answered by rollups of `grain` seconds, or (grain 0) by scanning executions. */
export interface WindowPiece {
  readonly grain: 0 | 300 | 3600 | 86400;
  readonly from: number;
  readonly to: number | null;
}

const FINEST = 5 * MINUTE;
const GRAIN_MS = [
  [86400, DAY],
  [3600, HOUR],
  [300, FINEST],
] as const;

/**
 * Splits a window into the fewest rollup pieces that fit inside it (days, then hours, then
 * five minutes) plus exact scans of the partial edges, so that a count over any window costs
 * a bounded amount of work however many executions it covers.
 * Stored timestamps have millisecond precision, so an inclusive bound `t` is the exclusive `t + 1`.
 */
export function splitWindow(window: TimeWindow): WindowPiece[] {
  const { from, to } = window;
  if (to !== null && to <= from) return [];
  const alignedFrom = ceilTo(from, FINEST);
  const alignedTo = to === null ? null : floorTo(to, FINEST);
  if (alignedTo !== null && alignedTo <= alignedFrom) return [{ grain: 0, from, to }];
  const pieces: WindowPiece[] = [];
  if (alignedFrom > from) pieces.push({ grain: 0, from, to: alignedFrom });
  cover(alignedFrom, alignedTo, 0, pieces);
  if (to !== null && alignedTo !== null && alignedTo < to) pieces.push({ grain: 0, from: alignedTo, to });
  return pieces;
}

function cover(lo: number, hi: number | null, level: number, pieces: WindowPiece[]): void {
  if (hi !== null && lo >= hi) return;
  const [grain, width] = GRAIN_MS[level]!;
  if (level === GRAIN_MS.length - 1) {
    pieces.push({ grain, from: lo, to: hi });
    return;
  }
  const innerLo = ceilTo(lo, width);
  const innerHi = hi === null ? null : floorTo(hi, width);
  if (innerHi !== null && innerLo >= innerHi) {
    cover(lo, hi, level + 1, pieces);
    return;
  }
  cover(lo, innerLo, level + 1, pieces);
  pieces.push({ grain, from: innerLo, to: innerHi });
  if (innerHi !== null) cover(innerHi, hi, level + 1, pieces);
}
