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

/**
 * Finest first; each width divides the next, so every bucket lies inside one bucket of each coarser
 * grain. The finest width is also the alignment of every window's exact edges. The 15-minute and
 * 6-hour grains (migration 0009) halve the buckets a 24-hour window reads: at most 2 five-minute,
 * 3 fifteen-minute and 5 hourly buckets at each end and 3 of six hours, where it was up to 11
 * five-minute buckets at each end and 23 hourly ones.
 */
export const GRAINS: readonly Grain[] = [
  { seconds: 300, ms: 5 * MINUTE },
  { seconds: 900, ms: 15 * MINUTE },
  { seconds: 3600, ms: HOUR },
  { seconds: 21600, ms: 6 * HOUR },
  { seconds: 86400, ms: DAY },
];

export const FINEST_GRAIN = GRAINS[0]!;

/**
 * The `grain` of an all-time total: one bucket per key, starting at the epoch (no stored time
 * is earlier). Window pieces never use it; totals are read by key alone.
 */
export const ALL_TIME = 0;
export const ALL_TIME_START = new Date(0);
