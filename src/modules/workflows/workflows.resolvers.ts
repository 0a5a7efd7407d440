import type { RequestContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { ModuleResolvers } from '../../graphql/resolver-types.js';
import type { WindowCounts } from '../../rollups/execution-counts.store.js';
import type { ApiScalars } from '../../schema/scalars.js';
import type { WorkflowsInput } from '../../schema/schema-types.generated.js';
import { checkListBound, likePattern, searchText, toPaging } from '../shared/paging.js';
import { normalizeUuid } from '../shared/uuid.js';
import { toWorkflow, type WorkflowParent } from './workflow.mapper.js';
import { createWorkflowLoaders } from './workflows.loaders.js';
import { countWorkflows, findWorkflow, listWorkflows, type WorkflowFilter } from './workflows.store.js';

interface WorkflowsOutputParent {
  readonly filter: WorkflowFilter;
  readonly input: WorkflowsInput<ApiScalars>;
}

function toFilter(input: WorkflowsInput<ApiScalars>): WorkflowFilter {
  checkListBound('workflowOwnerAddress', input.workflowOwnerAddress, 100);
  checkListBound('status', input.status, 10);
  const search = searchText(input.search);
  return {
    ownerAddresses: input.workflowOwnerAddress ?? undefined,
    statuses: input.status ?? undefined,
    search: search === undefined ? undefined : likePattern(search),
  };
}

/** Counts of the workflow's window: all time from the all-time rollup rows, else counted from `windowFrom`. */
function windowCounts(workflow: WorkflowParent, ctx: RequestContext): Promise<WindowCounts> {
  if (workflow.windowFrom === null) return ctx.loaders.of(createWorkflowLoaders).totals.load(workflow.uuid);
  return ctx.loaders
    .of(createWorkflowLoaders)
    .window.load({ uuid: workflow.uuid, from: workflow.windowFrom });
}

export const workflowsResolvers: ModuleResolvers = {
  Query: {
    workflows: (_parent, { input }): WorkflowsOutputParent => {
      toPaging(input.page);
      return { filter: toFilter(input), input };
    },
    workflow: async (_parent, { input }, ctx) => {
      const uuid = normalizeUuid(input.uuid);
      const row = uuid === undefined ? undefined : await findWorkflow(ctx.db, ctx.organizationId, uuid);
      if (!row) throw notFound('workflow not found');
      return { data: toWorkflow(row, input.from.getTime()) };
    },
  },
  WorkflowsOutput: {
    data: async (parent: WorkflowsOutputParent, _args: never, ctx: RequestContext) => {
      const order = parent.input.orderBy ?? { field: 'REGISTERED_AT' as const, order: 'DESC' as const };
      const rows = await listWorkflows(
        ctx.db,
        ctx.organizationId,
        parent.filter,
        order,
        toPaging(parent.input.page),
      );
      return rows.map((row) => toWorkflow(row, null));
    },
    count: (parent: WorkflowsOutputParent, _args: never, ctx: RequestContext) =>
      countWorkflows(ctx.db, ctx.organizationId, parent.filter),
  },
  Workflow: {
    executionCount: async (w: WorkflowParent, _args: never, ctx: RequestContext) =>
      (await windowCounts(w, ctx)).total,
    executionCountByStatus: async (w: WorkflowParent, _args: never, ctx: RequestContext) => {
      const counts = await windowCounts(w, ctx);
      return { success: counts.byStatus.get('SUCCESS') ?? 0, failure: counts.byStatus.get('FAILURE') ?? 0 };
    },
    creditUsed: async (w: WorkflowParent, _args: never, ctx: RequestContext) => {
      const counts = await windowCounts(w, ctx);
      return counts.total === 0 ? null : counts.credit;
    },
    executedAt: (w: WorkflowParent, _args: never, ctx: RequestContext) =>
      ctx.loaders.of(createWorkflowLoaders).executedAt.load(w.uuid),
    hasTeeExecutions: async (w: WorkflowParent, _args: never, ctx: RequestContext) =>
      (await ctx.loaders.of(createWorkflowLoaders).totals.load(w.uuid)).tee > 0,
    hasNonTeeExecutions: async (w: WorkflowParent, _args: never, ctx: RequestContext) => {
      const totals = await ctx.loaders.of(createWorkflowLoaders).totals.load(w.uuid);
      return totals.total > totals.tee;
    },
  },
};
