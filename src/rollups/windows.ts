import { ceilTo, floorTo } from '../modules/shared/buckets.js';
import type { Grain } from './grains.js';

/** A window of start times in ms: `from` inclusive, `to` exclusive (null: open-ended). */
export interface TimeWindow {
  readonly from: number;
  readonly to: number | null;
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
}

/** The grain of a piece answered from raw rows (the partial edges of a window). */
export const RAW = -1;

/**
 * The grain of a piece whose raw rows are subtracted: the rest of the finest bucket of an edge
 * read as that bucket's rollup row less the rows outside the window (SplitOptions.subtract).
 */
export const SUBTRACTED = -2;

export interface SplitOptions {
  /**
   * Read an edge that covers more than half of its finest bucket as the bucket's rollup row minus
   * the raw rows of the rest of the bucket, so that an edge reads at most half a bucket of raw
   * rows (a quarter on average) instead of all but one row of it. Only for measures that subtract:
   * counts, sums and histograms, not minimum and maximum.
   */
  readonly subtract?: boolean;
}

/**
 * Splits a window into the fewest pieces of a rollup's `grains` (finest first) that fit inside it
 * (coarsest grain first) plus the raw partial edges, so that an aggregate over any window costs a
 * bounded amount of work however many rows it covers: the edges are shorter than the finest grain,
 * to whose buckets they are aligned.
 * Stored timestamps have millisecond precision, so an inclusive bound `t` is the exclusive `t + 1`.
 */
export function splitWindow(
  window: TimeWindow,
  grains: readonly Grain[],
  options: SplitOptions = {},
): WindowPiece[] {
  const { from, to } = window;
  if (to !== null && to <= from) return [];
  const finest = grains[0]!;
  const alignedFrom = ceilTo(from, finest.ms);
  const alignedTo = to === null ? null : floorTo(to, finest.ms);
  const pieces: WindowPiece[] = [];
  /** The raw edge [lo, hi) inside the finest bucket starting at `bucket`. */
  const edge = (lo: number, hi: number, bucket: number) => {
    const bucketEnd = bucket + finest.ms;
    if (!options.subtract || (hi - lo) * 2 <= finest.ms) {
      pieces.push({ grain: RAW, from: lo, to: hi, bucket });
      return;
    }
    pieces.push({ grain: finest.seconds, from: bucket, to: bucketEnd });
    if (bucket < lo) pieces.push({ grain: SUBTRACTED, from: bucket, to: lo });
    if (hi < bucketEnd) pieces.push({ grain: SUBTRACTED, from: hi, to: bucketEnd });
  };
  if (alignedTo !== null && alignedTo <= alignedFrom) {
    // Inside one finest bucket, or across the boundary of two.
    const bucket = floorTo(from, finest.ms);
    if (to !== null && to <= bucket + finest.ms) edge(from, to, bucket);
    else pieces.push({ grain: RAW, from, to });
    return pieces;
  }
  if (alignedFrom > from) edge(from, alignedFrom, alignedFrom - finest.ms);
  cover(alignedFrom, alignedTo, grains, grains.length - 1, pieces);
  if (to !== null && alignedTo !== null && alignedTo < to) edge(alignedTo, to, alignedTo);
  return pieces;
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
