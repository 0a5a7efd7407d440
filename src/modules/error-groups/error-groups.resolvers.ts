import { errorGroupOf } from '../../rollups/fingerprint.js';
import { subfieldNames } from '../../schema/selected-fields.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { toPaging } from '../shared/paging.js';
import { activityBuckets, windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { groupPage } from './error-group-page.js';
import { type GroupFilter, rankGroups } from './error-groups.store.js';

/**
 * GraphQL's Int ends at 2^31-1. One error's count is bounded by it at ingestion, but a sum of
 * several is not: an occurrence count beyond it is answered as that maximum, never as an error
 * that would void the whole answer.
 */
const MAX_INT = 2 ** 31 - 1;
const saturated = (value: number): number => Math.min(value, MAX_INT);

export const errorGroupsResolvers: Resolvers = {
  Query: {
    errorGroups: async (_parent, { input }, ctx, info) => {
      const window = windowOf(input);
      const paging = toPaging(input.page);
      // Checked before reading anything: a range too wide for the activity series is refused.
      activityBuckets(window);
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'unchecked');
      if (workflowUuid === undefined) return { data: [], count: 0 };
      const filter: GroupFilter = { workflowUuid, capabilityId: input.capabilityID ?? null };
      const selected = subfieldNames(info, 'data');
      const withSpread = selected.has('workflowCount') || selected.has('capabilityIDs');
      const { ranked, spread } = await rankGroups(ctx.db, ctx.organizationId, window, filter, withSpread);
      const slice = ranked.slice(paging.offset, paging.offset + paging.limit);
      const page = groupPage(
        ctx.db,
        ctx.organizationId,
        window,
        filter,
        slice.map((group) => group.fingerprint),
        spread,
      );
      return { data: slice.map((group) => ({ ...group, page })), count: ranked.length };
    },
  },
  ErrorGroup: {
    occurrences: (group) => saturated(group.occurrences),
    // The pattern is its sample's: every message of a group has the group's pattern.
    pattern: async (group) =>
      errorGroupOf((await group.page.details()).get(group.fingerprint)?.sampleMessage ?? '').pattern,
    sampleMessage: async (group) => (await group.page.details()).get(group.fingerprint)?.sampleMessage ?? '',
    // Every ranked group has its error_groups row: both are written in the same transaction.
    firstSeenAt: async (group) => (await group.page.details()).get(group.fingerprint)?.firstSeenAt as Date,
    lastSeenAt: async (group) => (await group.page.details()).get(group.fingerprint)?.lastSeenAt as Date,
    workflowCount: async (group) => (await group.page.spread()).get(group.fingerprint)?.workflows.size ?? 0,
    capabilityIDs: async (group) =>
      [...((await group.page.spread()).get(group.fingerprint)?.capabilities ?? [])].sort(),
    activity: async (group) => {
      const { buckets, counts } = await group.page.activity();
      const occurrences = counts.get(group.fingerprint) ?? [];
      return buckets.map((bucket, i) => ({
        from: new Date(bucket.from),
        to: new Date(bucket.to),
        occurrences: saturated(occurrences[i] ?? 0),
      }));
    },
  },
};
