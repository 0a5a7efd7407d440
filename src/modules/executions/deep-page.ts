import type { Queryable } from '../../db/database.js';
import { executionCounts } from '../../rollups/execution-counts.rollup.js';
import { bucketTotals, countWindows } from '../../rollups/execution-counts.store.js';
import { instantsWindow } from '../../rollups/windows.js';
import type { ExecutionFilter } from './executions.store.js';

/** Below this offset a plain OFFSET scan is cheaper than seeking. */
export const SEEK_MIN_OFFSET = 5_000;

/** The execution counts' grains, coarsest first: the walk narrows from days down to five minutes. */
const LEVELS = [...executionCounts.grains].reverse();

export interface Seek {
  /** Only rows on the far side of this instant remain (before it when newest first, at or after it otherwise). */
  readonly boundary: number;
  /** Rows still to skip past the boundary. */
  readonly offset: number;
}

/**
 * Turns a deep OFFSET over executions ordered by startedAt into a seek: walks the rollups of each
 * grain, coarsest first, to the bucket where the offset lands; the buckets walked past are the rows
 * on the near side of that bucket's edge (counted again exactly, with rollups plus edge scans,
 * when the window's edges cut buckets). The page is then read from that edge with a small
 * remaining offset. Returns undefined when no better start than OFFSET is found.
 */
export async function seekStartedAt(
  db: Queryable,
  organizationId: string,
  filter: ExecutionFilter,
  offset: number,
  newestFirst: boolean,
): Promise<Seek | undefined> {
  const { from: windowFrom, to: windowTo } = instantsWindow(filter);
  let from = windowFrom;
  let to = windowTo;
  let skipped = 0;
  let boundary: number | undefined;
  for (const { seconds: grain, ms: width } of LEVELS) {
    const buckets = await bucketTotals(db, organizationId, {
      grain,
      workflowUuid: filter.workflowUuid ?? null,
      statuses: filter.statuses ?? null,
      from: new Date(Math.floor(from / width) * width),
      to: to === null ? null : new Date(to),
      newestFirst,
    });
    const landing = buckets.find((bucket) => {
      if (skipped + bucket.count > offset) return true;
      skipped += bucket.count;
      return false;
    });
    if (!landing) break;
    // Everything before the landing bucket (in reading order) can be skipped.
    boundary = newestFirst ? landing.start + width : landing.start;
    from = landing.start;
    to = landing.start + width;
  }
  if (boundary === undefined) return undefined;
  // Buckets of a window whose edges fall on day boundaries (or are open) lie wholly inside it, so
  // the buckets skipped on the way down count the near side exactly.
  const day = LEVELS[0]!.ms;
  const whole = windowFrom % day === 0 && (windowTo === null || windowTo % day === 0);
  if (whole) return { boundary, offset: offset - skipped };
  // Otherwise the edge buckets also hold rows outside the window: count the rows the seek skips
  // (those on the near side of the boundary) exactly, with rollups plus edge scans.
  const near = newestFirst
    ? { from: Math.max(boundary, windowFrom), to: windowTo }
    : { from: windowFrom, to: windowTo === null ? boundary : Math.min(boundary, windowTo) };
  const counts = await countWindows(
    db,
    organizationId,
    [{ key: 0, workflowUuid: filter.workflowUuid ?? null, ...near }],
    filter.statuses,
  );
  const before = counts.get(0)?.total ?? 0;
  if (before > offset) return undefined;
  return { boundary, offset: offset - before };
}
