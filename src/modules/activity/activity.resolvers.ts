import { normalizeUuid } from '../../lib/uuid.js';
import { countWindows } from '../../rollups/execution-counts.store.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { activityBuckets, windowOf } from '../shared/time-window.js';
import { findWorkflow } from '../workflows/workflows.store.js';

export const activityResolvers: Resolvers = {
  Query: {
    workflowActivity: async (_parent, { input }, ctx) => {
      // The bucket count is checked by arithmetic before any bucket is made (time-window.ts).
      const buckets = activityBuckets(windowOf(input));
      let workflowUuid: string | null = null;
      if (input.workflowUUID !== undefined && input.workflowUUID !== null) {
        const uuid = normalizeUuid(input.workflowUUID);
        if (uuid === undefined || !(await findWorkflow(ctx.db, ctx.organizationId, uuid)))
          return { data: [] };
        workflowUuid = uuid;
      }
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
