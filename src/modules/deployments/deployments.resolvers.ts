import { notFound } from '../../errors.js';
import { normalizeUuid } from '../../lib/uuid.js';
import type { ApiScalars } from '../../schema/scalars.js';
import type { WorkflowDeploymentsInput } from '../../schema/schema-types.generated.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { listParent } from '../shared/list-parent.js';
import { checkListBound, checkRange, likePattern, searchText } from '../shared/paging.js';
import { workflowUuidOf } from '../shared/workflow-scope.js';
import { toDeployment } from './deployment.mapper.js';
import { createDeploymentLoaders } from './deployments.loaders.js';
import {
  countDeployments,
  type DeploymentFilter,
  findDeployment,
  listDeployments,
} from './deployments.store.js';

function toFilter(input: WorkflowDeploymentsInput<ApiScalars>): DeploymentFilter | undefined {
  checkListBound('status', input.status, 10);
  checkRange(input.from, input.to);
  const search = searchText(input.search);
  const workflowUuid = workflowUuidOf(input.workflowUUID);
  if (!workflowUuid) return undefined;
  return {
    workflowUuid,
    statuses: input.status ?? undefined,
    from: input.from ?? undefined,
    to: input.to ?? undefined,
    search: search === undefined ? undefined : likePattern(search),
  };
}

export const deploymentsResolvers: Resolvers = {
  Query: {
    workflowDeployments: (_parent, { input }) =>
      listParent(input, toFilter, { field: 'DEPLOYED_AT', order: 'DESC' }),
    workflowDeployment: async (_parent, { input }, ctx) => {
      const uuid = normalizeUuid(input.uuid);
      const row = uuid === undefined ? undefined : await findDeployment(ctx.db, ctx.organizationId, uuid);
      // The contract names one message for a missing workflow or deployment, so clients match either alike.
      if (!row) throw notFound('workflow not found');
      return { data: toDeployment(row) };
    },
  },
  WorkflowDeploymentsOutput: {
    data: async (parent, _args, ctx) => {
      if (!parent.filter) return [];
      const rows = await listDeployments(
        ctx.db,
        ctx.organizationId,
        parent.filter,
        parent.order,
        parent.paging,
      );
      return rows.map(toDeployment);
    },
    count: (parent, _args, ctx) =>
      parent.filter ? countDeployments(ctx.db, ctx.organizationId, parent.filter) : 0,
  },
  WorkflowDeployment: {
    executionCountByStatus: async (d, _args, ctx) => {
      const counts = await ctx.loaders.of(createDeploymentLoaders).reign.load(d);
      return { success: counts.byStatus.get('SUCCESS') ?? 0, failure: counts.byStatus.get('FAILURE') ?? 0 };
    },
    hasTeeExecutions: async (d, _args, ctx) =>
      (await ctx.loaders.of(createDeploymentLoaders).reign.load(d)).tee > 0,
    hasNonTeeExecutions: async (d, _args, ctx) => {
      const counts = await ctx.loaders.of(createDeploymentLoaders).reign.load(d);
      return counts.total > counts.tee;
    },
  },
};
