import { badInput } from '../../errors.js';
import type { ModuleResolvers } from '../../graphql/resolver-types.js';
import { activityBucketWidth, bucketsCovering } from '../shared/buckets.js';
import { checkRange } from '../shared/paging.js';
import { DAY, formatTime, MAX_TIME, MIN_TIME } from '../shared/time.js';
import { normalizeUuid } from '../shared/uuid.js';
import { countWindows } from '../shared/window-counts.store.js';
import { findWorkflow } from '../workflows/workflows.store.js';

/** The widest range answered: about 19 years of 7-day buckets. */
export const MAX_ACTIVITY_BUCKETS = 1000;

export const activityResolvers: ModuleResolvers = {
  Query: {
    workflowActivity: async (_parent, { input }, ctx) => {
      const to = (input.to ?? new Date()).getTime();
      const from = input.from?.getTime() ?? to - DAY;
      // Checked after the defaults: a `from` in the future is later than the default `to` (now).
      checkRange(new Date(from), new Date(to));
      const width = activityBucketWidth(to - from);
      const buckets = bucketsCovering(from, to, width);
      if (buckets.length > MAX_ACTIVITY_BUCKETS) {
        throw badInput(`the range from..to must cover at most ${MAX_ACTIVITY_BUCKETS} buckets of 7 days`);
      }
      // Bucket edges are answered as Time values, so they must be ones the scalar can write.
      if (buckets[0]!.from < MIN_TIME || buckets.at(-1)!.to > MAX_TIME) {
        throw badInput(
          `the buckets of from..to must lie between ${formatTime(new Date(MIN_TIME))} and ${formatTime(new Date(MAX_TIME))}`,
        );
      }
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
