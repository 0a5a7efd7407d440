import { notFound } from '../../errors.js';
import { normalizeUuid } from '../../lib/uuid.js';
import type { WindowCounts } from '../../rollups/execution-counts.store.js';
import type { ApiScalars } from '../../schema/scalars.js';
import type { WorkflowsInput } from '../../schema/schema-types.generated.js';
import type { RequestContext } from '../context.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { listParent } from '../shared/list-parent.js';
import { checkListBound, likePattern, searchText } from '../shared/paging.js';
import { toWorkflow, type WorkflowParent } from './workflow.mapper.js';
import { createWorkflowLoaders } from './workflows.loaders.js';
import { countWorkflows, findWorkflow, listWorkflows, type WorkflowFilter } from './workflows.store.js';

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

export const workflowsResolvers: Resolvers = {
  Query: {
    workflows: (_parent, { input }) => listParent(input, toFilter, { field: 'REGISTERED_AT', order: 'DESC' }),
    workflow: async (_parent, { input }, ctx) => {
      const uuid = normalizeUuid(input.uuid);
      const row = uuid === undefined ? undefined : await findWorkflow(ctx.db, ctx.organizationId, uuid);
      if (!row) throw notFound('workflow not found');
      return { data: toWorkflow(row, input.from.getTime()) };
    },
  },
  WorkflowsOutput: {
    data: async (parent, _args, ctx) => {
      const rows = await listWorkflows(
        ctx.db,
        ctx.organizationId,
        parent.filter,
        parent.order,
        parent.paging,
      );
      return rows.map((row) => toWorkflow(row, null));
    },
    count: (parent, _args, ctx) => countWorkflows(ctx.db, ctx.organizationId, parent.filter),
  },
  Workflow: {
    executionCount: async (w, _args, ctx) => (await windowCounts(w, ctx)).total,
    executionCountByStatus: async (w, _args, ctx) => {
      const counts = await windowCounts(w, ctx);
      return { success: counts.byStatus.get('SUCCESS') ?? 0, failure: counts.byStatus.get('FAILURE') ?? 0 };
    },
    creditUsed: async (w, _args, ctx) => {
      const counts = await windowCounts(w, ctx);
      return counts.total === 0 ? null : counts.credit;
    },
    executedAt: (w, _args, ctx) => ctx.loaders.of(createWorkflowLoaders).executedAt.load(w.uuid),
    hasTeeExecutions: async (w, _args, ctx) =>
      (await ctx.loaders.of(createWorkflowLoaders).totals.load(w.uuid)).tee > 0,
    hasNonTeeExecutions: async (w, _args, ctx) => {
      const totals = await ctx.loaders.of(createWorkflowLoaders).totals.load(w.uuid);
      return totals.total > totals.tee;
    },
  },
};
