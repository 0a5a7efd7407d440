import { subfieldNames } from '../../schema/selected-fields.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { toPaging } from '../shared/paging.js';
import { activityBuckets, windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { toRankedGroups } from './error-group.mapper.js';
import { answerGroups, createErrorGroupLoaders } from './error-groups.loaders.js';
import { type GroupFilter, rankGroups } from './error-groups.store.js';

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
      const groups = toRankedGroups(slice, { window, filter }, spread);
      return {
        data: await answerGroups(ctx.loaders.of(createErrorGroupLoaders), groups, selected),
        count: ranked.length,
      };
    },
  },
};
