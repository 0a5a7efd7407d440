import type { RequestContext } from '../../context.js';
import type { ModuleResolvers } from '../../graphql/resolver-types.js';
import { errorGroupOf } from '../../rollups/fingerprint.js';
import { once } from '../shared/once.js';
import { toPaging } from '../shared/paging.js';
import { activityBuckets, type InclusiveWindow, windowOf } from '../shared/time-window.js';
import { normalizeUuid } from '../shared/uuid.js';
import {
  type GroupCount,
  type GroupFilter,
  groupActivity,
  groupSightings,
  groupSpread,
  rankGroups,
} from './error-groups.store.js';

/** What the groups of one page share: their details, spread and activity, each read once for the page. */
interface PageDetails {
  readonly details: ReturnType<typeof detailsOf>;
  readonly spread: () => ReturnType<typeof groupSpread>;
  readonly activity: () => Promise<{
    buckets: Array<{ from: number; to: number }>;
    counts: Map<string, number[]>;
  }>;
}

interface ErrorGroupParent extends GroupCount {
  readonly page: PageDetails;
}

const detailsOf = (ctx: RequestContext, fingerprints: string[]) =>
  once(() => groupSightings(ctx.db, ctx.organizationId, fingerprints));

function pageOf(
  ctx: RequestContext,
  window: InclusiveWindow,
  filter: GroupFilter,
  fingerprints: string[],
): PageDetails {
  const { db, organizationId } = ctx;
  return {
    details: detailsOf(ctx, fingerprints),
    spread: once(() => groupSpread(db, organizationId, window, filter, fingerprints)),
    activity: once(async () => {
      const buckets = activityBuckets(window);
      return { buckets, counts: await groupActivity(db, organizationId, buckets, filter, fingerprints) };
    }),
  };
}

export const errorGroupsResolvers: ModuleResolvers = {
  Query: {
    errorGroups: async (_parent, { input }, ctx) => {
      const window = windowOf(input);
      const paging = toPaging(input.page);
      // Checked before reading anything: a range too wide for the activity series is refused.
      activityBuckets(window);
      let workflowUuid: string | null = null;
      if (input.workflowUUID !== undefined && input.workflowUUID !== null) {
        const uuid = normalizeUuid(input.workflowUUID);
        if (uuid === undefined) return { data: [], count: 0 };
        workflowUuid = uuid;
      }
      const filter: GroupFilter = { workflowUuid, capabilityId: input.capabilityID ?? null };
      const ranked = await rankGroups(ctx.db, ctx.organizationId, window, filter);
      const slice = ranked.slice(paging.offset, paging.offset + paging.limit);
      const page = pageOf(
        ctx,
        window,
        filter,
        slice.map((group) => group.fingerprint),
      );
      return { data: slice.map((group): ErrorGroupParent => ({ ...group, page })), count: ranked.length };
    },
  },
  ErrorGroup: {
    // The pattern is its sample's: every message of a group has the group's pattern.
    pattern: async (group: ErrorGroupParent) =>
      errorGroupOf((await group.page.details()).get(group.fingerprint)?.sampleMessage ?? '').pattern,
    sampleMessage: async (group: ErrorGroupParent) =>
      (await group.page.details()).get(group.fingerprint)?.sampleMessage ?? '',
    firstSeenAt: async (group: ErrorGroupParent) =>
      (await group.page.details()).get(group.fingerprint)?.firstSeenAt,
    lastSeenAt: async (group: ErrorGroupParent) =>
      (await group.page.details()).get(group.fingerprint)?.lastSeenAt,
    workflowCount: async (group: ErrorGroupParent) =>
      (await group.page.spread()).get(group.fingerprint)?.workflows.size ?? 0,
    capabilityIDs: async (group: ErrorGroupParent) =>
      [...((await group.page.spread()).get(group.fingerprint)?.capabilities ?? [])].sort(),
    activity: async (group: ErrorGroupParent) => {
      const { buckets, counts } = await group.page.activity();
      const occurrences = counts.get(group.fingerprint) ?? [];
      return buckets.map((bucket, i) => ({
        from: new Date(bucket.from),
        to: new Date(bucket.to),
        occurrences: occurrences[i] ?? 0,
      }));
    },
  },
};
