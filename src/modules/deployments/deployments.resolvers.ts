import type { RequestContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { ModuleResolvers } from '../../graphql/resolver-types.js';
import type { ApiScalars } from '../../schema/scalars.js';
import type { WorkflowDeploymentsInput } from '../../schema/schema-types.generated.js';
import { checkListBound, checkRange, likePattern, searchText, toPaging } from '../shared/paging.js';
import { normalizeUuid } from '../shared/uuid.js';
import { type DeploymentParent, toDeployment } from './deployment.mapper.js';
import { createDeploymentLoaders } from './deployments.loaders.js';
import {
  countDeployments,
  type DeploymentFilter,
  findDeployment,
  listDeployments,
} from './deployments.store.js';

interface DeploymentsOutputParent {
  /** Undefined when the workflow uuid is malformed: nothing can match. */
  readonly filter: DeploymentFilter | undefined;
  readonly input: WorkflowDeploymentsInput<ApiScalars>;
}

function toFilter(input: WorkflowDeploymentsInput<ApiScalars>): DeploymentFilter | undefined {
  checkListBound('status', input.status, 10);
  checkRange(input.from, input.to);
  toPaging(input.page);
  const workflowUuid = normalizeUuid(input.workflowUUID);
  if (workflowUuid === undefined) return undefined;
  const search = searchText(input.search);
  return {
    workflowUuid,
    statuses: input.status ?? undefined,
    from: input.from ?? undefined,
    to: input.to ?? undefined,
    search: search === undefined ? undefined : likePattern(search),
  };
}

export const deploymentsResolvers: ModuleResolvers = {
  Query: {
    workflowDeployments: (_parent, { input }): DeploymentsOutputParent => ({
      filter: toFilter(input),
      input,
    }),
    workflowDeployment: async (_parent, { input }, ctx) => {
      const uuid = normalizeUuid(input.uuid);
      const row = uuid === undefined ? undefined : await findDeployment(ctx.db, ctx.organizationId, uuid);
      // The contract names one message for a missing workflow or deployment, so clients match either alike.
      if (!row) throw notFound('workflow not found');
      return { data: toDeployment(row) };
    },
  },
  WorkflowDeploymentsOutput: {
    data: async (parent: DeploymentsOutputParent, _args: never, ctx: RequestContext) => {
      if (!parent.filter) return [];
      const order = parent.input.orderBy ?? { field: 'DEPLOYED_AT' as const, order: 'DESC' as const };
      const rows = await listDeployments(
        ctx.db,
        ctx.organizationId,
        parent.filter,
        order,
        toPaging(parent.input.page),
      );
      return rows.map(toDeployment);
    },
    count: (parent: DeploymentsOutputParent, _args: never, ctx: RequestContext) =>
      parent.filter ? countDeployments(ctx.db, ctx.organizationId, parent.filter) : 0,
  },
  WorkflowDeployment: {
    executionCountByStatus: async (d: DeploymentParent, _args: never, ctx: RequestContext) => {
      const counts = await ctx.loaders.of(createDeploymentLoaders).reign.load(d);
      return { success: counts.byStatus.get('SUCCESS') ?? 0, failure: counts.byStatus.get('FAILURE') ?? 0 };
    },
    hasTeeExecutions: async (d: DeploymentParent, _args: never, ctx: RequestContext) =>
      (await ctx.loaders.of(createDeploymentLoaders).reign.load(d)).tee > 0,
    hasNonTeeExecutions: async (d: DeploymentParent, _args: never, ctx: RequestContext) => {
      const counts = await ctx.loaders.of(createDeploymentLoaders).reign.load(d);
      return counts.total > counts.tee;
    },
  },
};
