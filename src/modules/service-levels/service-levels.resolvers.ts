import { LRUCache } from 'lru-cache';
import { sameItems } from '../../lib/same-items.js';
import { keptAnswer } from '../../schema/kept-answer.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { workflowScope } from '../shared/workflow-scope.js';
import type { Counts } from './burn-rates.js';
import { figuresOf } from './burn-rates.js';
import { listMeasuredObjectives, type MeasuredObjective } from './objectives.store.js';
import { toServiceLevel } from './service-level.mapper.js';
import { type ObjectiveCounts, readObjectiveCounts } from './service-levels.store.js';

const answerOf = (objectives: readonly MeasuredObjective[], counts: readonly ObjectiveCounts[]) => ({
  data: objectives.map((objective, i) =>
    toServiceLevel(objective, figuresOf(objective.target, counts[i]!.period, counts[i]!.windows)),
  ),
});

/**
 * The latest answer of each organization and scope, with what it was made of: a request whose
 * objectives and counts are those of the last gets the very answer it got (a kept answer, whose
 * rendering is kept too: kept-answers.ts). A dashboard polls the same figures, which change only as
 * executions enter or leave a window.
 */
const ANSWERS = new LRUCache<
  string,
  {
    readonly objectives: readonly MeasuredObjective[];
    readonly counts: readonly ObjectiveCounts[];
    readonly answer: ReturnType<typeof answerOf>;
  }
>({ max: 64 });

const sameRow = <T extends object>(a: T, b: T) =>
  (Object.keys(a) as (keyof T)[]).every((key) => a[key] === b[key]);
const sameCounts = (a: Counts, b: Counts) => a.total === b.total && a.good === b.good;
const sameObjectiveCounts = (a: ObjectiveCounts, b: ObjectiveCounts) =>
  sameCounts(a.period, b.period) && sameItems(a.windows, b.windows, sameCounts);

export const serviceLevelsResolvers: Resolvers = {
  Query: {
    serviceLevels: keptAnswer(async (_parent, { input }, ctx) => {
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'unchecked');
      // Not a uuid: no workflow has it, so none of its objectives exist.
      if (workflowUuid === undefined) return { data: [] };
      const objectives = await listMeasuredObjectives(ctx.db, ctx.organizationId, workflowUuid);
      if (objectives.length === 0) return { data: [] };
      const counts = await readObjectiveCounts(ctx.db, ctx.organizationId, objectives, ctx.now());
      const id = `${ctx.organizationId}|${workflowUuid}`;
      const before = ANSWERS.get(id);
      if (
        before !== undefined &&
        sameItems(before.objectives, objectives, sameRow) &&
        sameItems(before.counts, counts, sameObjectiveCounts)
      )
        return before.answer;
      const answer = answerOf(objectives, counts);
      ANSWERS.set(id, { objectives, counts, answer });
      return answer;
    }),
  },
};
