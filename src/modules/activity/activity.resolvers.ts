import { countWindows } from '../../rollups/execution-counts.store.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { activityBuckets, windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';

export const activityResolvers: Resolvers = {
  Query: {
    workflowActivity: async (_parent, { input }, ctx) => {
      // The bucket count is checked by arithmetic before any bucket is made (time-window.ts).
      const buckets = activityBuckets(windowOf(input));
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'none');
      if (workflowUuid === undefined) return { data: [] };
      const counts = await countWindows(
        ctx.db,
        ctx.organizationId,
        buckets.map((bucket, index) => ({ key: index, workflowUuid, from: bucket.from, to: bucket.to })),
        ['SUCCESS', 'FAILURE'],
      );
      return {
        data: buckets.map((bucket, index) => {
          const count = counts.get(index)!;
          return {
            from: new Date(bucket.from),
            to: new Date(bucket.to),
            successCount: count.byStatus.get('SUCCESS') ?? 0,
            failureCount: count.byStatus.get('FAILURE') ?? 0,
          };
        }),
      };
    },
  },
};
