import { badInput } from '../../errors.js';
import { once } from '../../lib/once.js';
import { subfieldNames } from '../../schema/selected-fields.js';
import type { Resolvers } from '../resolver-types.generated.js';
import { LINE_OVERHEAD_BYTES, megabytes } from '../shared/answer-budget.js';
import { checkTextBound, likePattern, toPaging } from '../shared/paging.js';
import { windowOf } from '../shared/time-window.js';
import { workflowScope } from '../shared/workflow-scope.js';
import { countLogMatches, type LogSearch, searchLogs, searchLogsCounted } from './log-search.store.js';

/** Matches counted exactly up to this many; pages end there too. */
export const MAX_COUNTED_MATCHES = 10_000;
const MIN_QUERY_LENGTH = 3;

export const logSearchResolvers: Resolvers = {
  Query: {
    searchExecutionLogs: async (_parent, { input }, ctx, info) => {
      if ([...input.query].length < MIN_QUERY_LENGTH) {
        throw badInput(`query must be at least ${MIN_QUERY_LENGTH} characters`);
      }
      checkTextBound('query', input.query);
      const window = windowOf(input);
      const paging = toPaging(input.page);
      if (paging.offset + paging.limit > MAX_COUNTED_MATCHES) {
        throw badInput(
          `searchExecutionLogs pages end at match ${MAX_COUNTED_MATCHES}: narrow the window or the query to see older matches`,
        );
      }
      const workflowUuid = await workflowScope(ctx, input.workflowUUID, 'unchecked');
      if (workflowUuid === undefined) return { page: async () => [], count: async () => 0 };
      const search: LogSearch = {
        pattern: likePattern(input.query),
        workflowUuid,
        nodeId: input.nodeID ?? null,
        from: new Date(window.from),
        to: new Date(window.to),
      };
      const cap = MAX_COUNTED_MATCHES + 1;
      const pageAlone = () => searchLogs(ctx.db, ctx.organizationId, search, paging);
      const selected = subfieldNames(info);
      if (selected.has('data') && (selected.has('count') || selected.has('countIsExact'))) {
        // Both: one reading of the matches gives the count and, below the cap, the page.
        const both = once(() => searchLogsCounted(ctx.db, ctx.organizationId, search, paging, cap));
        return {
          page: async () => (await both()).page ?? (await pageAlone()),
          count: async () => (await both()).count,
        };
      }
      return {
        page: pageAlone,
        count: once(() => countLogMatches(ctx.db, ctx.organizationId, search, cap)),
      };
    },
  },
  SearchExecutionLogsOutput: {
    data: async (parent, _args, ctx) => {
      const rows = await parent.page();
      // A page is at most 100 lines: it is measured once read, and refused before it is answered.
      const textBytes = rows.reduce(
        (sum, row) => sum + Buffer.byteLength(row.message) + Buffer.byteLength(row.node_id),
        0,
      );
      ctx.answerBytes.charge(
        textBytes + rows.length * LINE_OVERHEAD_BYTES,
        (max) =>
          `searchExecutionLogs: the page's ${rows.length} lines hold ${megabytes(textBytes)} of text, more than this answer may still carry (its budget is ${max}); ask for a smaller page`,
      );
      return rows.map((row) => ({
        workflowExecutionUUID: row.workflow_execution_uuid,
        workflowUUID: row.workflow_uuid,
        workflowName: row.workflow_name,
        nodeID: row.node_id,
        timestamp: row.timestamp,
        message: row.message,
      }));
    },
    count: async (parent) => Math.min(await parent.count(), MAX_COUNTED_MATCHES),
    countIsExact: async (parent) => (await parent.count()) <= MAX_COUNTED_MATCHES,
  },
};
