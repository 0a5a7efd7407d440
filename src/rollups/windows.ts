import { ceilTo, floorTo } from '../lib/buckets.js';
import { type Grain, recentRungsFrom } from './grains.js';

/** A window of start times in ms: `from` inclusive, `to` exclusive (null: open-ended). */
export interface TimeWindow {
  readonly from: number;
  readonly to: number | null;
}

/**
 * The rollup window of an inclusive window [from, to] of start times in ms (`to` null: open-ended).
 * Stored timestamps have millisecond precision, so the inclusive bound `to` is the exclusive `to + 1`;
 * every read of an inclusive window (an aggregate's from..to, a filter's, an objective's ending now)
 * goes through this one conversion, and `inclusive` is its inverse.
 */
export function halfOpen(window: { readonly from: number; readonly to: number }): {
  from: number;
  to: number;
};
export function halfOpen(window: { readonly from: number; readonly to: number | null }): TimeWindow;
export function halfOpen(window: { readonly from: number; readonly to: number | null }): TimeWindow {
  return { from: window.from, to: window.to === null ? null : window.to + 1 };
}

/** The rollup window of a filter's instants, each optional and inclusive: open where one is absent. */
export function instantsWindow(window: {
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
}): TimeWindow {
  return halfOpen({ from: window.from?.getTime() ?? 0, to: window.to?.getTime() ?? null });
}

/** The inclusive window [from, to] of a bounded rollup window [from, to): halfOpen's inverse. */
export function inclusive(window: { readonly from: number; readonly to: number }): {
  from: number;
  to: number;
} {
  return { from: window.from, to: window.to - 1 };
}

/**
 * A piece of a window: answered by the rollup buckets of `grain` seconds that start in
 * [from, to), or (grain RAW) by reading the raw rows whose time lies in [from, to).
 */
export interface WindowPiece {
  readonly grain: number;
  readonly from: number;
  readonly to: number | null;
  /**
   * For a raw piece that lies inside one bucket of the finest grain: that bucket's start. When the
   * bucket holds no raw row outside the piece, its rollup row answers for the piece exactly (the
   * reader checks, in generically planned reads: rollup-reader.store.ts): so the edge of a window
   * that ends now costs one probe.
   */
  readonly bucket?: number;
  /** The width in seconds of the bucket `bucket` starts: the finest rung covering that part of the window. */
  readonly bucketSeconds?: number;
}

/** The grain of a piece answered from raw rows (the partial edges of a window). */
export const RAW = -1;

/**
 * The grain of a piece whose raw rows are subtracted: the rest of the finest bucket of an edge
 * read as that bucket's rollup row less the rows outside the window (rollup-reader.store.ts,
 * edgeSides).
 */
export const SUBTRACTED = -2;

/**
 * Splits a window into the fewest pieces of a rollup's `grains` (finest first) that fit inside it
 * (coarsest grain first) plus the raw partial edges, so that an aggregate over any window costs a
 * bounded amount of work however many rows it covers: the edges are shorter than the finest grain,
 * to whose buckets they are aligned. An inclusive window is split as halfOpen makes it.
 */
export function splitWindow(window: TimeWindow, grains: readonly Grain[]): WindowPiece[] {
  const { from, to } = window;
  if (to !== null && to <= from) return [];
  const finest = grains[0]!.ms;
  const bucketSeconds = grains[0]!.seconds;
  const alignedFrom = ceilTo(from, finest);
  const alignedTo = to === null ? null : floorTo(to, finest);
  if (alignedTo !== null && alignedTo <= alignedFrom) {
    // Inside one finest bucket, or across the boundary of two.
    const bucket = floorTo(from, finest);
    return [
      to !== null && to <= bucket + finest
        ? { grain: RAW, from, to, bucket, bucketSeconds }
        : { grain: RAW, from, to },
    ];
  }
  const pieces: WindowPiece[] = [];
  if (alignedFrom > from)
    pieces.push({ grain: RAW, from, to: alignedFrom, bucket: alignedFrom - finest, bucketSeconds });
  cover(alignedFrom, alignedTo, grains, grains.length - 1, pieces);
  if (to !== null && alignedTo !== null && alignedTo < to)
    pieces.push({ grain: RAW, from: alignedTo, to, bucket: alignedTo, bucketSeconds });
  return pieces;
}

/**
 * The pieces a rollup's window is read in at `now`: splitWindow over the rollup's rungs or, for a
 * rollup that keeps its finest rungs for recent buckets only (RollupSpec.recentRungs), the part
 * of the window before recentRungsFrom split over the rungs kept for ever and the rest over all of
 * them. The cut is at the start of a day, so it falls between buckets of every rung and adds no
 * raw piece.
 */
export function coverWindow(
  rollup: { readonly grains: readonly Grain[]; readonly recentRungs: number },
  window: TimeWindow,
  now: number = Date.now(),
): WindowPiece[] {
  const { grains } = rollup;
  const recent = rollup.recentRungs;
  if (recent === 0) return splitWindow(window, grains);
  const cut = recentRungsFrom(now);
  const older = grains.slice(recent);
  if (window.to !== null && window.to <= cut) return splitWindow(window, older);
  if (window.from >= cut) return splitWindow(window, grains);
  return [
    ...splitWindow({ from: window.from, to: cut }, older),
    ...splitWindow({ from: cut, to: window.to }, grains),
  ];
}

/**
 * Covers [lo, hi) with buckets of `grains[level]` where they fit and, around them, buckets of the
 * finer grains below it: the ladder is walked from its coarse end, finest first as the rollup keeps it.
 */
function cover(
  lo: number,
  hi: number | null,
  grains: readonly Grain[],
  level: number,
  pieces: WindowPiece[],
): void {
  if (hi !== null && lo >= hi) return;
  const { seconds, ms } = grains[level]!;
  if (level === 0) {
    pieces.push({ grain: seconds, from: lo, to: hi });
    return;
  }
  const innerLo = ceilTo(lo, ms);
  const innerHi = hi === null ? null : floorTo(hi, ms);
  if (innerHi !== null && innerLo >= innerHi) {
    cover(lo, hi, grains, level - 1, pieces);
    return;
  }
  cover(lo, innerLo, grains, level - 1, pieces);
  pieces.push({ grain: seconds, from: innerLo, to: innerHi });
  if (innerHi !== null) cover(innerHi, hi, grains, level - 1, pieces);
}
