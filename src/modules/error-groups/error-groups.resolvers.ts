import { LRUCache } from 'lru-cache';
import { sameData } from '../../lib/same-data.js';
import { keptAnswer } from '../../schema/kept-answer.js';
import { subfieldNames } from '../../schema/selected-fields.js';
import type { ResolvedTypes, Resolvers } from '../resolver-types.generated.js';
import { toPaging } from '../shared/paging.js';
import { activityBuckets, windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { toRankedGroups } from './error-group.mapper.js';
import { answerGroups, createErrorGroupLoaders, needsSpread } from './error-groups.loaders.js';
import { type GroupFilter, rankGroups } from './error-groups.store.js';

type Answer = ResolvedTypes['ErrorGroupsOutput'];

/**
 * The latest answer of each organization, input and selection: a request whose answer holds the
 * same data, group by group and field by field, gets the very object (a kept answer, whose
 * rendering is kept too: kept-answers.ts). A dashboard polls the same groups, which change only as
 * an execution with an error enters or leaves the window, or a group is seen again.
 */
const ANSWERS = new LRUCache<string, Answer>({ max: 64 });

export const errorGroupsResolvers: Resolvers = {
  Query: {
    errorGroups: keptAnswer(async (_parent, { input }, ctx, info) => {
      const window = windowOf(input);
      const paging = toPaging(input.page);
      // Checked before reading anything: a range too wide for the activity series is refused.
      activityBuckets(window);
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'unchecked');
      if (workflowUuid === undefined) return { data: [], count: 0 };
      const filter: GroupFilter = { workflowUuid, capabilityId: input.capabilityID ?? null };
      const selected = subfieldNames(info, 'data');
      const { ranked, spread } = await rankGroups(
        ctx.db,
        ctx.organizationId,
        window,
        filter,
        needsSpread(selected),
      );
      const slice = ranked.slice(paging.offset, paging.offset + paging.limit);
      const groups = toRankedGroups(slice, { window, filter }, spread);
      const answer: Answer = {
        data: await answerGroups(ctx.loaders.of(createErrorGroupLoaders), groups, selected),
        count: ranked.length,
      };
      const id = `${ctx.organizationId}|${JSON.stringify(input)}|${[...selected].join(',')}`;
      const before = ANSWERS.get(id);
      if (before !== undefined && sameData(before, answer)) return before;
      ANSWERS.set(id, answer);
      return answer;
    }),
  },
};
