import { normalizeUuid } from '../../lib/uuid.js';
import { retentionMark } from '../../rollups/window-cache.js';
import type { ApiScalars } from '../../schema/scalars.js';
import type { WorkflowExecutionsInput } from '../../schema/schema-types.generated.js';
import { subfieldNames } from '../../schema/selected-fields.js';
import type { RequestContext } from '../context.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { LINE_OVERHEAD_BYTES, megabytes } from '../shared/answer-budget.js';
import { listParent } from '../shared/list-parent.js';
import { checkListBound, checkRange, likePattern, type Paging, searchText } from '../shared/paging.js';
import { instantsRollupWindow } from '../shared/time-window.js';
import { workflowUuidOf } from '../shared/workflow-scope.js';
import { SEEK_MIN_OFFSET, seekStartedAt } from './deep-page.js';
import { toEvent, toExecution, toLog } from './execution.mapper.js';
import { createExecutionLoaders, retainedWindow } from './executions.loaders.js';
import {
  countExecutionsByScan,
  countExecutionsWithGroup,
  type ExecutionFilter,
  type ExecutionOrder,
  findExecution,
  listEvents,
  listExecutions,
  listLogs,
  logTextOfExecution,
} from './executions.store.js';

/** Lines returned for one execution at most (logs, events). */
export const MAX_LINES = 10_000;

function toFilter(input: WorkflowExecutionsInput<ApiScalars>): ExecutionFilter | undefined {
  checkListBound('status', input.status, 10);
  checkRange(input.from, input.to);
  const search = searchText(input.search);
  const workflowUuid = workflowUuidOf(input.workflowUuid);
  if (workflowUuid === undefined) return undefined;
  return {
    workflowUuid: workflowUuid ?? undefined,
    statuses: input.status ?? undefined,
    search: search === undefined ? undefined : likePattern(search),
    from: input.from ?? undefined,
    to: input.to ?? undefined,
    // Only in the extended schema; absent (undefined) in the hosted one.
    errorFingerprint: input.errorFingerprint?.toLowerCase() ?? undefined,
  };
}

/** Filters the rollups cannot place rows by (search, error group): deep pages are not seeked. */
const scanned = (filter: ExecutionFilter) =>
  filter.search !== undefined || filter.errorFingerprint !== undefined;

/**
 * Without `search`, the count is assembled from rollups: its cost does not grow with the matches,
 * and the counts of one request are read together (createExecutionLoaders).
 * An error group with statuses is counted by scanning (its rollups have no status).
 */
async function countExecutions(ctx: RequestContext, listed: ExecutionFilter): Promise<number> {
  if (listed.search !== undefined || (listed.errorFingerprint !== undefined && listed.statuses !== undefined))
    return countExecutionsByScan(ctx.db, ctx.organizationId, listed);
  if (listed.errorFingerprint === undefined)
    return ctx.loaders.of(createExecutionLoaders).count.load({
      workflowUuid: listed.workflowUuid ?? null,
      statuses: listed.statuses,
      from: listed.from,
      to: listed.to,
    });
  const filter = await retained(ctx, listed);
  return countExecutionsWithGroup(
    ctx.db,
    ctx.organizationId,
    listed.errorFingerprint,
    instantsRollupWindow(0, filter, filter.workflowUuid ?? null),
  );
}

/** A list's window from the first instant retention keeps: its count and pages show what remains. */
async function retained(ctx: RequestContext, filter: ExecutionFilter): Promise<ExecutionFilter> {
  return retainedWindow(filter, await retentionMark(ctx.db, ctx.organizationId, filter.from?.getTime() ?? 0));
}

/**
 * A deep page in startedAt order starts reading at the rollup bucket where its offset lands
 * instead of skipping every row before it: the filter is narrowed to the far side of that
 * bucket's edge and only the remainder is skipped. Same rows, same order, bounded cost.
 */
async function seekDeepPage(
  ctx: RequestContext,
  filter: ExecutionFilter,
  order: ExecutionOrder,
  paging: Paging,
): Promise<{ filter: ExecutionFilter; paging: Paging }> {
  if (order.field !== 'STARTED_AT' || scanned(filter) || paging.offset < SEEK_MIN_OFFSET) {
    return { filter, paging };
  }
  const newestFirst = order.order === 'DESC';
  const seek = await seekStartedAt(
    ctx.db,
    ctx.organizationId,
    await retained(ctx, filter),
    paging.offset,
    newestFirst,
  );
  if (!seek) return { filter, paging };
  const narrowed = newestFirst
    ? { ...filter, to: new Date(seek.boundary - 1) }
    : { ...filter, from: new Date(seek.boundary) };
  return { filter: narrowed, paging: { limit: paging.limit, offset: seek.offset } };
}

export const executionsResolvers: Resolvers = {
  Query: {
    workflowExecutions: (_parent, { input }) =>
      listParent(input, toFilter, { field: 'STARTED_AT', order: 'DESC' }),
    workflowExecution: async (_parent, { input }, ctx) => {
      const uuid = normalizeUuid(input.uuid);
      const row = uuid === undefined ? undefined : await findExecution(ctx.db, ctx.organizationId, uuid);
      return { data: row ? toExecution(row) : null };
    },
    workflowExecutionLogs: async (_parent, { input }, ctx) => {
      const uuid = normalizeUuid(input.workflowExecutionUUID);
      if (uuid === undefined) return { data: null };
      // Decided before a line is read: an answer past the budget is never built.
      const text = await logTextOfExecution(ctx.db, ctx.organizationId, uuid, MAX_LINES);
      if (text === undefined) return { data: null };
      if (text.lines === 0) return { data: [] };
      const { lines, textBytes } = text;
      ctx.answerBytes.charge(
        textBytes + lines * LINE_OVERHEAD_BYTES,
        (max) =>
          `workflowExecutionLogs: the execution's ${lines} lines hold ${megabytes(textBytes)} of text, more than this answer may still carry (its budget is ${max}); read them page by page with workflowExecutionLogPage (extended API), or export them with \`wfapi export logs\``,
      );
      const rows = await listLogs(ctx.db, ctx.organizationId, uuid, MAX_LINES);
      return { data: rows?.map(toLog) ?? null };
    },
    workflowExecutionEvents: async (_parent, { input }, ctx) => {
      const uuid = normalizeUuid(input.workflowExecutionUUID);
      const filter = { capabilityId: input.capabilityID ?? undefined, status: input.status ?? undefined };
      const rows =
        uuid === undefined
          ? undefined
          : await listEvents(ctx.db, ctx.organizationId, uuid, filter, MAX_LINES);
      return { data: rows?.map(toEvent) ?? null };
    },
  },
  WorkflowExecutionsOutput: {
    data: async (parent, _args, ctx, info) => {
      if (!parent.filter) return [];
      const { filter, paging } = await seekDeepPage(ctx, parent.filter, parent.order, parent.paging);
      const selected = subfieldNames(info);
      const reads = {
        workflow: selected.has('workflowName') || selected.has('workflowId'),
        errors: selected.has('errors'),
        creditUsed: selected.has('creditUsed'),
      };
      const rows = await listExecutions(ctx.db, ctx.organizationId, filter, parent.order, paging, reads);
      return rows.map(toExecution);
    },
    count: (parent, _args, ctx) => (parent.filter ? countExecutions(ctx, parent.filter) : 0),
  },
};
