import { errorGroupOf } from '../../rollups/fingerprint.js';
import { subfieldNames } from '../../schema/selected-fields.js';
import type { RequestContext } from '../context.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { toPaging } from '../shared/paging.js';
import { activityBuckets, windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { type ErrorGroupParent, toErrorGroups } from './error-group.mapper.js';
import { createErrorGroupLoaders } from './error-groups.loaders.js';
import { type GroupFilter, rankGroups } from './error-groups.store.js';

/**
 * GraphQL's Int ends at 2^31-1. One error's count is bounded by it at ingestion, but a sum of
 * several is not: an occurrence count beyond it is answered as that maximum, never as an error
 * that would void the whole answer.
 */
const MAX_INT = 2 ** 31 - 1;
const saturated = (value: number): number => Math.min(value, MAX_INT);

const sightings = (group: ErrorGroupParent, ctx: RequestContext) =>
  ctx.loaders.of(createErrorGroupLoaders).sightings.load(group.fingerprint);

/** Read with the rank when the request selected it; otherwise read again, once for the scope. */
const spread = (group: ErrorGroupParent, ctx: RequestContext) =>
  group.spread === null
    ? ctx.loaders.of(createErrorGroupLoaders).spread.load(group.scope)
    : Promise.resolve(group.spread);

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
      return { data: toErrorGroups(slice, { window, filter }, spread), count: ranked.length };
    },
  },
  ErrorGroup: {
    occurrences: (group) => saturated(group.occurrences),
    // The pattern is its sample's: every message of a group has the group's pattern.
    pattern: async (group, _args, ctx) =>
      errorGroupOf((await sightings(group, ctx))?.sampleMessage ?? '').pattern,
    sampleMessage: async (group, _args, ctx) => (await sightings(group, ctx))?.sampleMessage ?? '',
    // Every ranked group has its error_groups row: both are written in the same transaction.
    firstSeenAt: async (group, _args, ctx) => (await sightings(group, ctx))?.firstSeenAt as Date,
    lastSeenAt: async (group, _args, ctx) => (await sightings(group, ctx))?.lastSeenAt as Date,
    workflowCount: async (group, _args, ctx) =>
      (await spread(group, ctx)).get(group.fingerprint)?.workflows.size ?? 0,
    capabilityIDs: async (group, _args, ctx) =>
      [...((await spread(group, ctx)).get(group.fingerprint)?.capabilities ?? [])].sort(),
    activity: async (group, _args, ctx) => {
      const activity = await ctx.loaders.of(createErrorGroupLoaders).activity.load(group);
      return activity.map((bucket) => ({
        from: new Date(bucket.from),
        to: new Date(bucket.to),
        occurrences: saturated(bucket.occurrences),
      }));
    },
  },
};
