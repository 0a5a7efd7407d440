import { BinCounts } from '../../rollups/bin-counts.js';
import { displayHistogram } from '../../rollups/duration-bins.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { checkListBound } from '../shared/paging.js';
import { windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { type DurationSummary, summarizeDurations } from './durations.store.js';
import { percentiles } from './percentiles.js';

const EMPTY: DurationSummary = { count: 0, sumMs: 0, minMs: null, maxMs: null, bins: new BinCounts() };

export function toDurationStats(summary: DurationSummary) {
  const { count, minMs, maxMs, bins } = summary;
  const extremes = { min: minMs ?? 0, max: maxMs ?? 0 };
  const [p50Ms, p90Ms, p95Ms, p99Ms] =
    count === 0 ? [null, null, null, null] : percentiles(bins, [50, 90, 95, 99], extremes);
  return {
    count,
    minMs: count === 0 ? null : minMs,
    maxMs: count === 0 ? null : maxMs,
    meanMs: count === 0 ? null : summary.sumMs / count,
    p50Ms,
    p90Ms,
    p95Ms,
    p99Ms,
    histogram: displayHistogram(bins).map((bucket) => ({
      fromMs: bucket.fromMs,
      // GraphQL floats are finite: the open-ended last bucket ends at the largest duration.
      toMs: Number.isFinite(bucket.toMs) ? bucket.toMs : Math.max(bucket.fromMs + 1, (maxMs ?? 0) + 1),
      count: bucket.count,
    })),
  };
}

export const durationsResolvers: Resolvers = {
  Query: {
    durationStats: async (_parent, { input }, ctx) => {
      checkListBound('status', input.status, 10);
      const window = windowOf(input);
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'unchecked');
      if (workflowUuid === undefined) return { data: toDurationStats(EMPTY) };
      const summary = await summarizeDurations(ctx.db, ctx.organizationId, window, {
        workflowUuid,
        capabilityId: input.capabilityID ?? null,
        statuses: input.status ?? null,
      });
      return { data: toDurationStats(summary) };
    },
  },
};
