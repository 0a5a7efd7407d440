import { percentiles } from '../durations/percentiles.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { toPaging } from '../shared/paging.js';
import { windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { type CapabilityCalls, capabilityCalls } from './capabilities.store.js';

function toCapabilityStats(calls: CapabilityCalls) {
  const [p50Ms, p95Ms] = percentiles(calls.bins, [50, 95], null);
  return {
    capabilityID: calls.capabilityId,
    calls: calls.calls,
    failures: calls.failures,
    failureRate: calls.failures / calls.calls,
    p50Ms,
    p95Ms,
  };
}

export const capabilitiesResolvers: Resolvers = {
  Query: {
    capabilityStats: async (_parent, { input }, ctx) => {
      const window = windowOf(input);
      const paging = toPaging(input.page);
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'unchecked');
      if (workflowUuid === undefined) return { data: [], count: 0 };
      const all = (await capabilityCalls(ctx.db, ctx.organizationId, window, workflowUuid)).sort(
        (a, b) => b.failures - a.failures || (a.capabilityId < b.capabilityId ? -1 : 1),
      );
      return {
        data: all.slice(paging.offset, paging.offset + paging.limit).map(toCapabilityStats),
        count: all.length,
      };
    },
  },
};
