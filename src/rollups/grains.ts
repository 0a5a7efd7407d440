/**
 * The rollup grain ladder: the bucket widths at which ingestion keeps aggregates, declared once.
 * Window readers cover a window with the coarsest buckets that fit inside it (see windows.ts);
 * every rollup table stores its rows at each of these grains (plus, for some, the all-time total).
 */
import { DAY, HOUR, MINUTE } from '../modules/shared/time.js';

export interface Grain {
  /** Bucket width in seconds: the `grain` column of every rollup table. */
  readonly seconds: number;
  readonly ms: number;
}

/** Finest first. The finest width is also the alignment of every window's exact edges. */
export const GRAINS: readonly Grain[] = [
  { seconds: 300, ms: 5 * MINUTE },
  { seconds: 3600, ms: HOUR },
  { seconds: 86400, ms: DAY },
];

export const FINEST_GRAIN = GRAINS[0]!;

/**
 * The `grain` of an all-time total: one bucket per key, starting at the epoch (no stored time
 * is earlier). Window pieces never use it; totals are read by key alone.
 */
export const ALL_TIME = 0;
export const ALL_TIME_START = new Date(0);
