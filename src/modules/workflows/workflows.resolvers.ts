import type { RequestContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { ModuleResolvers } from '../../graphql/resolver-types.js';
import type { ApiScalars } from '../../schema/scalars.js';
import type { WorkflowsInput } from '../../schema/schema-types.generated.js';
import { checkListBound, likePattern, searchText, toPaging } from '../shared/paging.js';
import { normalizeUuid } from '../shared/uuid.js';
import { toWorkflow, type WorkflowParent } from './workflow.mapper.js';
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

/** Aggregates of the workflow's window: all time from the totals rollup, else counted from `windowFrom`. */
async function windowTotals(workflow: WorkflowParent, ctx: RequestContext) {
  if (workflow.windowFrom === null) {
    const totals = await ctx.loaders.workflows.totals.load(workflow.uuid);
    return {
      total: totals?.execution_count ?? 0,
      success: totals?.success_count ?? 0,
      failure: totals?.failure_count ?? 0,
      credit: totals?.credit_used ?? '0',
    };
  }
  const counts = await ctx.loaders.workflows.window.load({ uuid: workflow.uuid, from: workflow.windowFrom });
  return {
    total: counts.total,
    success: counts.byStatus.get('SUCCESS') ?? 0,
    failure: counts.byStatus.get('FAILURE') ?? 0,
    credit: counts.credit,
  };
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
      (await windowTotals(w, ctx)).total,
    executionCountByStatus: async (w: WorkflowParent, _args: never, ctx: RequestContext) => {
      const totals = await windowTotals(w, ctx);
      return { success: totals.success, failure: totals.failure };
    },
    creditUsed: async (w: WorkflowParent, _args: never, ctx: RequestContext) => {
      const totals = await windowTotals(w, ctx);
      return totals.total === 0 ? null : totals.credit;
    },
    executedAt: (w: WorkflowParent, _args: never, ctx: RequestContext) =>
      ctx.loaders.workflows.executedAt.load(w.uuid),
    hasTeeExecutions: async (w: WorkflowParent, _args: never, ctx: RequestContext) => {
      const totals = await ctx.loaders.workflows.totals.load(w.uuid);
      return (totals?.tee_count ?? 0) > 0;
    },
    hasNonTeeExecutions: async (w: WorkflowParent, _args: never, ctx: RequestContext) => {
      const totals = await ctx.loaders.workflows.totals.load(w.uuid);
      return (totals?.execution_count ?? 0) > (totals?.tee_count ?? 0);
    },
  },
};
