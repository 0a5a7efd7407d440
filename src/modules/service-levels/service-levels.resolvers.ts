import type { Resolvers } from '../resolver-types.generated.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { figuresOf } from './burn-rates.js';
import { listMeasuredObjectives } from './objectives.store.js';
import { toServiceLevel } from './service-level.mapper.js';
import { readObjectiveCounts } from './service-levels.store.js';

export const serviceLevelsResolvers: Resolvers = {
  Query: {
    serviceLevels: async (_parent, { input }, ctx) => {
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'unchecked');
      // Not a uuid: no workflow has it, so none of its objectives exist.
      if (workflowUuid === undefined) return { data: [] };
      const objectives = await listMeasuredObjectives(ctx.db, ctx.organizationId, workflowUuid);
      if (objectives.length === 0) return { data: [] };
      const now = ctx.now();
      const counts = await readObjectiveCounts(ctx.db, ctx.organizationId, objectives, now);
      return {
        data: objectives.map((objective, i) =>
          toServiceLevel(objective, figuresOf(objective.target, counts[i]!.period, counts[i]!.windows)),
        ),
      };
    },
  },
};
