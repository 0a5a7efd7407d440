/**
 * The rollup grain ladder: the bucket widths at which ingestion keeps aggregates, declared once.
 * Window readers cover a window with the coarsest buckets that fit inside it (see windows.ts);
 * every rollup table stores its rows at each rung of the ladder it keeps (RollupSpec.grains), plus,
 * for some, the all-time total.
 */
import { floorTo } from '../lib/buckets.js';
import { DAY, HOUR, MINUTE } from '../lib/time.js';

export interface Grain {
  /** Bucket width in seconds: the `grain` column of every rollup table. */
  readonly seconds: number;
  readonly ms: number;
}

const ONE_MINUTE: Grain = { seconds: 60, ms: MINUTE };
const FIVE_MINUTES: Grain = { seconds: 300, ms: 5 * MINUTE };
const FIFTEEN_MINUTES: Grain = { seconds: 900, ms: 15 * MINUTE };
const ONE_HOUR: Grain = { seconds: 3600, ms: HOUR };
const SIX_HOURS: Grain = { seconds: 21600, ms: 6 * HOUR };
const ONE_DAY: Grain = { seconds: 86400, ms: DAY };

/**
 * Finest first; each width divides the next, so every bucket lies inside one bucket of each coarser
 * grain. A rollup's finest rung is the bucket its ingestion adds items to and the alignment of a
 * window's exact edges, which are read from the raw rows (windows.ts).
 */
export const GRAINS: readonly Grain[] = [
  ONE_MINUTE,
  FIVE_MINUTES,
  FIFTEEN_MINUTES,
  ONE_HOUR,
  SIX_HOURS,
  ONE_DAY,
];

export const DAY_GRAIN = ONE_DAY;

/**
 * The rungs a rollup keeps by default: 5 minutes, an hour, a day. Each rung costs ingestion a row
 * per key and bucket, and a window read one more index probe; a rung pays only where the rows it
 * saves are dear to read. For histograms they are (durations keep every rung, migrations 0009 and
 * 0010: a 24-hour window then reads at most 4 one-minute, 2 five-minute, 3 fifteen-minute and 5
 * hourly buckets at each end and 3 of six hours, and its raw edges are under a minute each); for
 * counts the extra probes cost more than the rows they save (README, Performance).
 */
export const DEFAULT_LADDER: readonly Grain[] = [FIVE_MINUTES, ONE_HOUR, ONE_DAY];

/** A rollup's rungs, checked: grains of the ladder, finest first, up to the day. */
export function ladderOf(grains: readonly Grain[]): readonly Grain[] {
  const ordered = grains.every((grain, i) => i === 0 || grains[i - 1]!.seconds < grain.seconds);
  if (
    !ordered ||
    grains.length === 0 ||
    grains.at(-1) !== DAY_GRAIN ||
    grains.some((grain) => !GRAINS.includes(grain))
  )
    throw new Error('a rollup keeps grains of the ladder, finest first, up to the day');
  return grains;
}

/**
 * The `grain` of an all-time total: one bucket per key, starting at the epoch (no stored time
 * is earlier). Window pieces never use it; totals are read by key alone.
 */
export const ALL_TIME = 0;
export const ALL_TIME_START = new Date(0);

/**
 * How many days back a rollup whose finest rungs are recent only (RollupSpec.recentRungs) keeps
 * them: a week's windows, the 3-day burn window and the week around a recent deployment keep raw
 * edges under a minute. Older buckets are read from the first rung kept for ever, their edges from
 * raw rows under its width (under half of it where the reader may subtract). The one-minute and
 * five-minute rungs are 81% of the duration rollups' rows on the loaded million (1.19 and 0.98 of
 * 2.68 million), kept for every bucket of a history that outlives the raw rows' retention; kept
 * eight days, they stop growing with the history.
 */
export const RECENT_RUNGS_DAYS = 8;

/**
 * The first bucket a reader at `now` reads from the recent-only rungs: the start of the day,
 * RECENT_RUNGS_DAYS back. Every instance computes it from its own clock.
 */
export function recentRungsFrom(now: number): number {
  return floorTo(now, DAY) - RECENT_RUNGS_DAYS * DAY;
}

/**
 * The first bucket written to, and kept in, the recent-only rungs at `now`: a day before the
 * readers' first (recentRungsFrom), so that a read planned just before midnight finds every row
 * it counts on however its statement runs late, and a reader whose clock lags a writer's by less
 * than a day reads no bucket the writer skipped.
 */
export function recentRungsKeptFrom(now: number): number {
  return recentRungsFrom(now) - DAY;
}
